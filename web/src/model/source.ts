/**
 * Which rows answered a report, as the service says in `Server-Timing` (docs/rollups.md, "Which path
 * answered"): `rollup` (accelerated), `raw` with the reason, or `mixed` (a split or compare report
 * whose parts differ). Absent when the service says nothing (rollups off).
 */
export interface AnswerSource {
  readonly source: 'rollup' | 'raw' | 'mixed';
  readonly reason?: string;
}

/** An entry of a Server-Timing header: its metric name and its `desc`. */
interface TimingEntry {
  readonly name: string;
  readonly desc?: string;
}

const TOKEN = /[!#$%&'*+\-.^_`|~0-9A-Za-z]+/y;
const QUOTED = /"((?:[^"\\]|\\.)*)"/y;

/**
 * The entries of a Server-Timing header (W3C Server Timing: `name;param=value, …`, values tokens
 * or RFC 9110 quoted strings, in which a comma may appear: the reason "…, before this time range"
 * has one). What does not parse ends the list: a header sent by someone else is not trusted further.
 */
export function parseServerTiming(header: string): TimingEntry[] {
  const entries: TimingEntry[] = [];
  let i = 0;
  const skipSpace = () => {
    while (header[i] === ' ' || header[i] === '\t') i++;
  };
  const match = (re: RegExp): RegExpExecArray | null => {
    re.lastIndex = i;
    const m = re.exec(header);
    if (m) i = re.lastIndex;
    return m;
  };
  while (i < header.length) {
    skipSpace();
    const name = match(TOKEN)?.[0];
    if (!name) break;
    let desc: string | undefined;
    for (skipSpace(); header[i] === ';'; skipSpace()) {
      i++;
      skipSpace();
      const param = match(TOKEN)?.[0]?.toLowerCase();
      skipSpace();
      if (header[i] !== '=') continue;
      i++;
      skipSpace();
      const quoted = match(QUOTED);
      const value = quoted ? (quoted[1] ?? '').replace(/\\(.)/g, '$1') : match(TOKEN)?.[0];
      if (param === 'desc' && desc === undefined) desc = value;
    }
    entries.push({ name, ...(desc === undefined ? {} : { desc }) });
    if (header[i] !== ',') break;
    i++;
  }
  return entries;
}

/** The answer's source from its Server-Timing header, or undefined when it says none (rollups off). */
export function answerSourceOf(serverTiming: string | null): AnswerSource | undefined {
  const entries = parseServerTiming(serverTiming ?? '');
  const source = entries.find((e) => e.name === 'source')?.desc;
  if (source !== 'rollup' && source !== 'raw' && source !== 'mixed') return undefined;
  const reason = entries.find((e) => e.name === 'raw-reason')?.desc;
  return { source, ...(reason ? { reason } : {}) };
}

/** What the explorer says of the answer's source: a label that never relies on colour, and the why. */
export function describeSource(s: AnswerSource): { label: string; text: string } {
  switch (s.source) {
    case 'rollup':
      return {
        label: 'Accelerated:',
        text: 'answered from the rollups (pre-aggregated rows that give exactly the documents’ answer).',
      };
    case 'raw':
      return {
        label: 'Not accelerated:',
        text: `read from the documents, because ${s.reason ?? 'the rollups cannot answer it'}.`,
      };
    case 'mixed':
      return {
        label: 'Partly accelerated:',
        text: `some slices were read from the documents, because ${s.reason ?? 'the rollups cannot answer them'}.`,
      };
  }
}
