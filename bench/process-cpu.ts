import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** CPU time in ms (user + system) of a Linux process: its main thread's, and all its threads'. */
export interface ProcessCpu {
  readonly mainMs: number;
  readonly allMs: number;
}

/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

const ticksOf = (statFile: string): number => {
  const fields = readFileSync(statFile, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return Number(fields[11]) + Number(fields[12]);
};

/**
 * The CPU time of `pid`'s last descendant (`npm start` as bench/ingest.ts starts it: the tsx CLI
 * runs the server in a child process), for the share of the main thread in a server's work: the
 * one thread its writes must go through. Undefined where there is no /proc.
 */
export function serverCpu(pid: number): ProcessCpu | undefined {
  if (!existsSync(`/proc/${pid}`)) return undefined;
  let server = pid;
  for (;;) {
    const children = readFileSync(`/proc/${server}/task/${server}/children`, 'utf8').trim().split(' ').filter(Boolean);
    if (children.length === 0) break;
    server = Number(children[children.length - 1]);
  }
  let all = 0;
  for (const tid of readdirSync(`/proc/${server}/task`)) {
    try {
      all += ticksOf(`/proc/${server}/task/${tid}/stat`);
    } catch {
      // A thread that ended between the listing and the read.
    }
  }
  return { mainMs: ticksOf(`/proc/${server}/task/${server}/stat`) * TICK_MS, allMs: all * TICK_MS };
}
