import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AppError,
  EngineUnavailableError,
  LocationsNotGrantedError,
  ForbiddenError,
  HeadersTooLargeError,
  InternalError,
  MalformedBodyError,
  MalformedRequestError,
  MethodNotAllowedError,
  MisdirectedRequestError,
  NotAcceptableError,
  NotFoundError,
  PayloadTooLargeError,
  ReportTimeoutError,
  ReportTooExpensiveError,
  RequestTimeoutError,
  TooManyBucketsError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '#shared/errors';
import {
  ConflictError,
  PreconditionFailedError,
  PreconditionRequiredError,
  WriteTooLargeError,
} from '#shared/locations/errors';
import { problemsHtml, problemsMarkdown } from '#shared/problem-page';
import { PROBLEM_SLUGS, PROBLEM_TYPES } from '#shared/problem-types';
import { problemTypeBaseError } from '#shared/problem-uri';
import { ResponseTooLargeError } from '#shared/report/query-report';
import { SliceTooManyBucketsError } from '#shared/report/split/run-split';
import {
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
} from '../../functions/commons/idempotency/idempotency-key';
import { SplitInputTooLargeError } from '../../functions/commons/split/step-functions-executor';
import { createProblemsHandler } from '../../functions/problems';
import { createQueryReportHandler } from '../../functions/query-report';
import { invoke } from '../../bin/dev/lambda-events';

const ROOT = join(__dirname, '../..');

/** One of every error the service answers with. */
const EVERY_ERROR: readonly AppError[] = [
  new ValidationError([{ path: '/a', message: 'm' }]),
  new MalformedBodyError('d'),
  new UnauthorizedError(),
  new ForbiddenError('d', 'ingest'),
  new LocationsNotGrantedError([{ path: '/locationIds/0', message: 'm' }]),
  new ConflictError('d', { reason: 'exists' }),
  new PreconditionFailedError('d'),
  new PreconditionRequiredError('d'),
  new WriteTooLargeError(1, 1, 97),
  new NotFoundError('d'),
  new MethodNotAllowedError('DELETE', '/locations', ['GET', 'HEAD', 'OPTIONS']),
  new MisdirectedRequestError('evil.example', ['localhost:3000']),
  new MalformedRequestError(),
  new RequestTimeoutError(),
  new HeadersTooLargeError(16_384),
  new NotAcceptableError(['application/json']),
  new PayloadTooLargeError(1),
  new UnsupportedMediaTypeError(['application/json'], 'r'),
  new TooManyBucketsError(10),
  new SliceTooManyBucketsError(10, '1M'),
  new ResponseTooLargeError(2, 1),
  new SplitInputTooLargeError(1),
  new IdempotencyKeyInUseError(),
  new IdempotencyKeyReusedError(),
  new EngineUnavailableError('d'),
  new ReportTimeoutError(1000),
  new ReportTooExpensiveError(),
  new InternalError(),
];

describe('the problem types', () => {
  test('are the types the errors answer with, each with the title and status of the table', () => {
    const answered = EVERY_ERROR.map((e) => e.toProblem()).map(({ type, title, status }) => ({ type, title, status }));
    const table = (slug: string) => PROBLEM_TYPES[slug as keyof typeof PROBLEM_TYPES];
    expect(answered).toEqual(
      answered.map(({ type }) => ({
        type,
        title: table(type.split('#')[1]!).title,
        status: table(type.split('#')[1]!).status,
      })),
    );
    expect(new Set(answered.map((p) => p.type))).toEqual(new Set(PROBLEM_SLUGS.map((slug) => `/problems#${slug}`)));
  });

  test('are written to docs/problems.md as generated (run `npm run openapi` after a change), a heading per type', () => {
    const page = readFileSync(join(ROOT, 'docs/problems.md'), 'utf8');
    expect(page).toBe(problemsMarkdown());
    // GitHub's anchor of a heading `## too-many-buckets` is `#too-many-buckets`.
    expect(page.match(/^## .*$/gm)).toEqual(PROBLEM_SLUGS.map((slug) => `## ${slug}`));
  });

  test('make an HTML page with a section per type, its id the type, and the text escaped', () => {
    const html = problemsHtml();
    expect([...html.matchAll(/<section id="([^"]+)">/g)].map((m) => m[1])).toEqual(PROBLEM_SLUGS);
    // The unauthorized type says `Authorization: Bearer <token>`: text, never markup.
    expect(html).toContain('<code>Authorization: Bearer &lt;token&gt;</code>');
    expect(html).not.toMatch(/<(script|style|img|link)\b/);
  });

  test.each([
    ['/problems#', undefined],
    ['https://docs.example.org/lrs/problems#', undefined],
    ['https://docs.example.org/lrs/problems/', undefined],
    [
      'https://docs.example.org/lrs/problems',
      'must end in "#" (the page\'s anchors) or "/" (a page per type), got "https://docs.example.org/lrs/problems"',
    ],
    ['docs/problems.md#', 'must be an absolute http(s) URL, got "docs/problems.md#"'],
    ['ftp://docs.example.org/#', 'must be an absolute http(s) URL, got "ftp://docs.example.org/#"'],
  ])('take %s as the base of their URIs: %s', (base, error) => {
    expect(problemTypeBaseError(base)).toBe(error);
  });
});

describe('GET /problems', () => {
  const handler = createProblemsHandler();

  test('answers the page to anyone, whatever Accept says, cacheable, loading nothing, with an ETag that gives 304', async () => {
    // Act
    const page = await invoke(handler, {
      method: 'GET',
      path: '/problems',
      org: null,
      headers: { accept: 'application/json' },
    });
    const again = await invoke(handler, {
      method: 'GET',
      path: '/problems',
      org: null,
      headers: { 'if-none-match': page.headers.etag ?? '' },
    });
    // Assess
    expect(page.status).toBe(200);
    expect(page.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'public, max-age=3600',
      'content-security-policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      etag: expect.stringMatching(/^W\/"/),
    });
    expect(page.body).toBe(problemsHtml());
    expect([again.status, again.body]).toEqual([304, '']);
  });
});

describe('a deployment that documents its problem types elsewhere (PROBLEM_TYPE_BASE)', () => {
  afterEach(() => {
    delete process.env.PROBLEM_TYPE_BASE;
  });

  test('answers problems whose type is that base and the slug, and the default without it', async () => {
    const report = createQueryReportHandler({
      engine: () => ({ maxBuckets: 65_535, run: () => Promise.reject(new Error('the engine must not be reached')) }),
    });
    const bad = { body: { aggregations: [] } };
    expect((await invoke(report, bad)).json<{ type: string }>().type).toBe('/problems#validation');
    process.env.PROBLEM_TYPE_BASE = 'https://docs.example.org/lrs/problems#';
    expect((await invoke(report, bad)).json<{ type: string }>().type).toBe(
      'https://docs.example.org/lrs/problems#validation',
    );
  });
});
