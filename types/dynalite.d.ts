/** The part of dynalite's API the local server uses (the package ships no types). */
declare module 'dynalite' {
  import type { Server } from 'node:http';
  interface DynaliteOptions {
    /** LevelDB folder; in memory when absent. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
  }
  function dynalite(options?: DynaliteOptions): Server;
  export default dynalite;
}
