/**
 * The part of negotiator's API the content coding negotiation uses: @types/negotiator (0.6) predates
 * negotiator 1.0's `preferred` option, which orders codings the client accepts equally.
 */
declare module 'negotiator' {
  class Negotiator {
    constructor(request: { headers: Readonly<Record<string, string | undefined>> });
    /** The acceptable codings among `available`, best first; ties go by `preferred`, else by the header's order. */
    encodings(available: readonly string[], options?: { preferred?: readonly string[] }): string[];
  }
  export default Negotiator;
}
