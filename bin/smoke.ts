/**
 * Smoke test of a running API, deployed or local: the three endpoints with one token, and a small
 * report as JSON and as CSV. Prints one line per check and exits non-zero at the first failure,
 * saying what was expected and what came back.
 *
 *   npm run smoke -- --api https://abc123.execute-api.eu-west-1.amazonaws.com --token "$TOKEN"
 *   npm run smoke -- --api http://localhost:3000 --token "$(npm run -s token -- --org <uuid>)"
 *
 * The token's organization needs at least one location. Responses are checked against the
 * OpenAPI document's schemas (shared/openapi/document.ts), the service's one contract.
 */
import { stripVTControlCharacters } from 'node:util';
import { Command, InvalidArgumentError } from 'commander';
import { z } from 'zod';
import { openApiDocument } from '#shared/openapi/document';
import { cliOptions } from './cli/options';
import { parseCommand, runAsProcess } from './cli/run';

export interface SmokeOptions {
  /** Base URL of the API (the stack's ApiUrl output); a trailing slash is fine. */
  readonly api: string;
  /** A bearer token (an ID token of a user of a test organization). */
  readonly token: string;
  /** Bound on each request. */
  readonly timeoutMs: number;
  /** The report covers the 24 whole hours before this instant's hour. @default now */
  readonly now?: Date;
}

/** Thrown by a check: its message is the line printed after `FAIL`. */
class CheckFailed extends Error {}

const HOUR_MS = 3_600_000;
const REPORT_HOURS = 24;

type JsonSchema = Parameters<typeof z.fromJSONSchema>[0];

/** The response schemas of the OpenAPI document, as zod validators. */
function contract() {
  const schemas = (openApiDocument() as { components: { schemas: Record<string, JsonSchema> } }).components.schemas;
  // A schema is converted on its own, so its references to the document's other schemas (a
  // comparison's ReportBucket) are put in place first.
  const inline = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(inline);
    if (value === null || typeof value !== 'object') return value;
    const { $ref, ...rest } = value as { $ref?: string } & Record<string, unknown>;
    const own = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inline(v)]));
    return typeof $ref === 'string'
      ? { ...(inline(schemas[$ref.replace('#/components/schemas/', '')]) as object), ...own }
      : own;
  };
  const of = (schema: JsonSchema) => z.fromJSONSchema(inline(schema) as JsonSchema);
  return {
    locations: of({ type: 'array', items: schemas.Location } as JsonSchema) as z.ZodType<
      { id: string; organizationId: string }[]
    >,
    liveInsights: of(schemas.LiveInsights!) as z.ZodType<{ insights: { occupancy?: unknown[] } }>,
    report: of(schemas.ReportResponse!) as z.ZodType<Record<string, unknown>[] | Record<string, number>>,
  };
}

interface Answer {
  readonly status: number;
  readonly contentType: string;
  /** The body, or its first MAX_BODY_BYTES when `cut`. */
  readonly text: string;
  /** The body went on past MAX_BODY_BYTES; the rest was not read. */
  readonly cut: boolean;
}

/**
 * The most of a body the smoke test reads: far more than any answer it checks, and a bound on what
 * a server that sends without end (a broken proxy, a hostile one) can make it hold.
 */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The body's first `max` bytes as text; the rest is cancelled unread. */
async function readBounded(
  body: ReadableStream<Uint8Array> | null,
  max: number,
): Promise<{ text: string; cut: boolean }> {
  if (!body) return { text: '', cut: false };
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: text + decoder.decode(), cut: false };
    const take = value.subarray(0, max - bytes);
    text += decoder.decode(take, { stream: true });
    bytes += take.length;
    if (take.length < value.length) {
      await reader.cancel();
      return { text, cut: true };
    }
  }
}

/** The runner: one request at a time, each bounded by the timeout. */
function client(options: SmokeOptions) {
  const base = options.api.replace(/\/+$/, '');
  return async (
    path: string,
    init: { method?: string; body?: unknown; accept?: string; token?: string | null } = {},
  ): Promise<Answer> => {
    const token = init.token === undefined ? options.token : init.token;
    const headers: Record<string, string> = { accept: init.accept ?? 'application/json' };
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    try {
      const response = await fetch(base + path, {
        method: init.method ?? 'GET',
        headers,
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      return {
        status: response.status,
        contentType: response.headers.get('content-type') ?? '',
        ...(await readBounded(response.body, MAX_BODY_BYTES)),
      };
    } catch (e) {
      const error = e as Error & { cause?: { code?: string; message?: string } };
      const why =
        error.name === 'TimeoutError'
          ? `no answer within ${options.timeoutMs / 1000} s`
          : (error.cause?.code ?? error.cause?.message ?? error.message);
      throw new CheckFailed(`could not reach ${base + path}: ${why}`);
    }
  };
}

const excerpt = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

function expectStatus(answer: Answer, status: number, hint = ''): void {
  if (answer.status !== status)
    throw new CheckFailed(`expected ${status}, got ${answer.status}: ${excerpt(answer.text) || '(empty body)'}${hint}`);
}

function parseWith<T>(answer: Answer, schema: z.ZodType<T>, what: string): T {
  if (!answer.contentType.startsWith('application/json'))
    throw new CheckFailed(`expected application/json, got "${answer.contentType}"`);
  if (answer.cut)
    throw new CheckFailed(
      `the body goes on past ${MAX_BODY_BYTES / 1024 / 1024} MiB, more than any answer checked here: ${excerpt(answer.text)}`,
    );
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    throw new CheckFailed(`the body is not JSON: ${excerpt(answer.text)}`);
  }
  const result = schema.safeParse(body);
  if (!result.success) {
    const issues = result.error.issues.slice(0, 3).map((i) => `/${i.path.join('/')}: ${i.message}`);
    throw new CheckFailed(`the body is not ${what} as the OpenAPI document defines it (${issues.join('; ')})`);
  }
  return result.data;
}

const UNAUTHORIZED_HINT = ' (is the token an unexpired ID token for this API?)';

/**
 * Runs the checks in order, calling `printLine` with one line per check (server text made printable); resolves true
 * when all pass. A failure stops the run: the later checks need what the earlier ones found.
 */
export async function runSmoke(options: SmokeOptions, printLine: (line: string) => void): Promise<boolean> {
  // Lines quote what the server sent: none of its escapes reach the terminal.
  const print = (line: string): void => printLine(printable(line));
  const call = client(options);
  const schemas = contract();
  const hourEnd = Math.floor((options.now ?? new Date()).getTime() / HOUR_MS) * HOUR_MS;
  const from = new Date(hourEnd - REPORT_HOURS * HOUR_MS).toISOString();
  const to = new Date(hourEnd).toISOString();
  const expectedBuckets = Array.from({ length: REPORT_HOURS }, (_, i) =>
    new Date(hourEnd - (REPORT_HOURS - i) * HOUR_MS).toISOString(),
  );
  let first = '';
  let counts: number[] = [];

  const checks: [string, () => Promise<string>][] = [
    [
      'GET /locations',
      async () => {
        const answer = await call('/locations');
        expectStatus(answer, 200, answer.status === 401 || answer.status === 403 ? UNAUTHORIZED_HINT : '');
        const locations = parseWith(answer, schemas.locations, 'a list of locations');
        if (locations.length === 0)
          throw new CheckFailed(
            "200, but the token's organization has no location: the smoke test needs one (docs/deploy.md, smoke user)",
          );
        const organizations = new Set(locations.map((l) => l.organizationId));
        if (organizations.size !== 1)
          throw new CheckFailed(
            `locations of ${organizations.size} organizations in one answer: ${[...organizations].join(', ')}`,
          );
        first = locations[0]!.id;
        return `200, ${locations.length} location${locations.length === 1 ? '' : 's'} of organization ${[...organizations][0]}, first ${first}`;
      },
    ],
    [
      'GET /locations without a token',
      async () => {
        expectStatus(await call('/locations', { token: null }), 401);
        return '401, refused';
      },
    ],
    [
      'GET /locations/{first}/insights/live?filter=occupancy',
      async () => {
        const answer = await call(`/locations/${encodeURIComponent(first)}/insights/live?filter=occupancy`);
        expectStatus(answer, 200);
        const entries = parseWith(answer, schemas.liveInsights, 'live insights').insights.occupancy ?? [];
        return `200, ${first}: ${entries.length} open sensor group${entries.length === 1 ? '' : 's'} with occupancy`;
      },
    ],
    [
      'POST /reports:query (JSON)',
      async () => {
        const answer = await call('/reports:query', { method: 'POST', body: hourlyReport(first, from, to) });
        expectStatus(answer, 200);
        const body = parseWith(answer, schemas.report, 'a report');
        if (!Array.isArray(body)) throw new CheckFailed('expected a time series (an array), got an object');
        const timestamps = body.map((b) => b.timestamp);
        if (JSON.stringify(timestamps) !== JSON.stringify(expectedBuckets)) {
          throw new CheckFailed(
            `expected ${REPORT_HOURS} hourly buckets ${from} … ${expectedBuckets.at(-1)}, got ${body.length}: ${excerpt(timestamps.join(', '))}`,
          );
        }
        counts = body.map((b) => (typeof b.count === 'number' ? b.count : 0));
        return `200, ${REPORT_HOURS} hourly buckets from ${from} to ${to}, ${counts.reduce((a, b) => a + b, 0)} movement events at ${first}`;
      },
    ],
    [
      'POST /reports:query (CSV)',
      async () => {
        const answer = await call('/reports:query', {
          method: 'POST',
          body: hourlyReport(first, from, to),
          accept: 'text/csv',
        });
        expectStatus(answer, 200);
        if (!answer.contentType.startsWith('text/csv'))
          throw new CheckFailed(`expected text/csv, got "${answer.contentType}"`);
        if (answer.cut)
          throw new CheckFailed(`the CSV goes on past ${MAX_BODY_BYTES / 1024 / 1024} MiB: ${excerpt(answer.text)}`);
        const [header, ...rows] = answer.text.split('\r\n').filter((line) => line !== '');
        const columns = (header ?? '').split(',');
        if (columns[0] !== 'timestamp')
          throw new CheckFailed(`expected a header row starting with timestamp, got "${header ?? ''}"`);
        const countColumn = columns.indexOf('count');
        const csv = rows.map((row) => row.split(','));
        const csvCounts = csv.map((cells) => (countColumn < 0 ? 0 : Number(cells[countColumn])));
        if (
          JSON.stringify(csv.map((cells) => cells[0])) !== JSON.stringify(expectedBuckets) ||
          JSON.stringify(csvCounts) !== JSON.stringify(counts)
        ) {
          throw new CheckFailed(`the CSV rows differ from the JSON report: ${excerpt(answer.text)}`);
        }
        return `200, header "${header}", ${rows.length} rows, the same counts as the JSON`;
      },
    ],
  ];

  print(`smoke: ${options.api}`);
  for (const [index, [name, check]] of checks.entries()) {
    try {
      print(`ok    ${name}: ${await check()}`);
    } catch (e) {
      if (!(e instanceof CheckFailed)) throw e;
      print(`FAIL  ${name}: ${e.message}`);
      print(
        `smoke: failed at check ${index + 1} of ${checks.length}${index + 1 < checks.length ? '; the later checks did not run' : ''}`,
      );
      return false;
    }
  }
  print(`smoke: all ${checks.length} checks passed`);
  return true;
}

/**
 * `text` without terminal escape sequences (ANSI CSI and OSC, which can recolour, retitle or clear a
 * terminal, or hide text) and without the other control characters, C0 but the newline and tab, DEL
 * and C1 (U+009B is a CSI of its own).
 */
export function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  return stripVTControlCharacters(text).replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

/** Movement events per hour at one location: an answer of known shape whatever the data. */
const hourlyReport = (locationId: string, from: string, to: string) => ({
  source: 'movementEvents',
  locationIds: [locationId],
  filters: [{ type: 'range', field: 'timestamp', from, to }],
  aggregations: [{ type: 'dateHistogram', interval: '1h' }],
});

export async function smokeCli(argv: readonly string[]): Promise<number> {
  const program = new Command('smoke')
    .description('Smoke-test a running API: locations, live insights and a small report (JSON and CSV).')
    .addOption(cliOptions.api().makeOptionMandatory())
    .addOption(cliOptions.token('SMOKE_TOKEN'))
    .option(
      '--timeout <seconds>',
      'bound on each request',
      (v) => {
        const n = Number(v);
        if (!Number.isFinite(n) || n <= 0 || n > 600)
          throw new InvalidArgumentError('must be a number of seconds, more than 0 and at most 600');
        return n;
      },
      30,
    );
  const exit = parseCommand(program, argv);
  if (exit !== undefined) return exit;
  const options = program.opts<{ api: string; token?: string; timeout: number }>();
  if (!options.token) throw new Error('a token is needed: --token <jwt> or SMOKE_TOKEN');
  const passed = await runSmoke({ api: options.api, token: options.token, timeoutMs: options.timeout * 1000 }, (line) =>
    process.stdout.write(`${line}\n`),
  );
  return passed ? 0 : 1;
}

if (require.main === module) runAsProcess('smoke', smokeCli);
