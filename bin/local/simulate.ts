import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { Collection } from '#shared/documents/fields';
import {
  hourlyShare,
  localHour,
  lotStats,
  movementEvent,
  parkingArrivalsPerHour,
  parkingEvent,
  prng,
  type Site,
} from '../seed/generate';
import { createSender, DEFAULT_RETRY_POLICY, type Sender } from '../ingest/send';

const gzip = promisify(gzipCallback);

export interface SimulationOptions {
  /** The service's base URL: events go through its ingest endpoint, as a gateway's would. */
  readonly url: string;
  /** A token with the ingest scope for `organizationId`. */
  readonly token: string;
  readonly organizationId: string;
  /** The seeded sites to simulate (their ids are location ids of the organization). */
  readonly sites: readonly Site[];
  readonly intervalMs: number;
  /** Movement events per location and day, on average (spread over the day as the seed spreads them). */
  readonly eventsPerDay: number;
  /** After each round: what was sent, or why a collection's batch failed. */
  readonly onRound?: (round: SimulationRound) => void | Promise<void>;
}

export interface SimulationRound {
  readonly sent: Readonly<Record<Collection, number>>;
  readonly failures: readonly string[];
}

export interface Simulation {
  /** Stops after the round in progress, if any. */
  stop(): Promise<void>;
}

/**
 * Streams events for the seeded locations every `intervalMs`, as sensors would: for each round, the
 * movement events, parking stays that ended and lot stats (each quarter hour) that fall in the time
 * since the last round, at the seed's daily pattern, posted to the service's own ingest endpoint.
 * Every document carries an `id`, so the sender's retries are harmless.
 */
export function startSimulation(o: SimulationOptions): Simulation {
  const sender = createSender(o.url, o.token, { ...DEFAULT_RETRY_POLICY, retries: 2, timeoutMs: 30_000 });
  const random = prng(Date.now() & 0x7fffffff);
  let last = Date.now();
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(async () => {
      const now = Date.now();
      const round = await send(sender, documentsBetween(o, random, last, now));
      last = now;
      await o.onRound?.(round);
    });
  }, o.intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await running.catch(() => undefined);
    },
  };
}

type Documents = Record<Collection, Record<string, unknown>[]>;

/** The documents of every site in (from, to]: counts drawn around the seed's rate for the local hour. */
export function documentsBetween(
  o: Pick<SimulationOptions, 'organizationId' | 'sites' | 'eventsPerDay'>,
  random: () => number,
  from: number,
  to: number,
): Documents {
  const out: Documents = { movementEvents: [], parkingEvents: [], parkingLotStats: [] };
  const hours = (to - from) / 3_600_000;
  const at = () => from + 1 + Math.floor(random() * (to - from));
  for (const site of o.sites) {
    const hour = localHour(site, to);
    for (let i = draws(random, o.eventsPerDay * hourlyShare(hour) * hours); i > 0; i--) {
      const t = at();
      out.movementEvents.push({
        id: randomUUID(),
        ...movementEvent(random, o.organizationId, site, t, localHour(site, t)),
      });
    }
    // The seed's stays scaled as its movement events are (1,500 a day): a stay is sent when it ends.
    for (let i = draws(random, parkingArrivalsPerHour(hour) * hours * (o.eventsPerDay / 1500)); i > 0; i--) {
      out.parkingEvents.push({ id: randomUUID(), ...parkingEvent(random, o.organizationId, site, at()) });
    }
    for (let quarter = Math.floor(from / 900_000) + 1; quarter * 900_000 <= to; quarter++) {
      const t = quarter * 900_000;
      out.parkingLotStats.push({
        id: `${site.id}-lot-1:${t}`,
        ...lotStats(random, o.organizationId, site, t, localHour(site, t)),
      });
    }
  }
  return out;
}

/** A whole number of events with mean `expected`: its whole part, and one more with the chance of its fraction. */
const draws = (random: () => number, expected: number) => Math.floor(expected) + (random() < expected % 1 ? 1 : 0);

async function send(sender: Sender, documents: Documents): Promise<SimulationRound> {
  const sent: Record<Collection, number> = { movementEvents: 0, parkingEvents: 0, parkingLotStats: 0 };
  const failures: string[] = [];
  for (const [collection, docs] of Object.entries(documents) as [Collection, Record<string, unknown>[]][]) {
    if (docs.length === 0) continue;
    const outcome = await sender.send(collection, await gzip(docs.map((d) => JSON.stringify(d)).join('\n')));
    if (outcome.kind === 'failed') failures.push(`${collection}: ${outcome.reason}`);
    else if (outcome.result.rejected.length > 0)
      failures.push(
        `${collection}: ${outcome.result.rejected.length} rejected, e.g. ${JSON.stringify(outcome.result.rejected[0])}`,
      );
    sent[collection] = outcome.kind === 'answered' ? outcome.result.accepted : 0;
  }
  return { sent, failures };
}
