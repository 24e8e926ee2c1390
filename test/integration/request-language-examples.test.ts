import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpenSearchEngine } from '#shared/stores/opensearch/report/execute';
import { createQueryReportHandler } from '../../functions/query-report';
import { invoke } from '../../bin/dev/lambda-events';
import { deleteIndices, indexDocuments, testClient, uniquePrefix } from './support/opensearch';
import { movementEvents, parkingEvents, parkingLotStats } from './report/fixtures';

/**
 * The worked examples of docs/request-language.md are real: each `<!-- example -->` marker is followed
 * by a request block and the response block the service must give, byte for byte (CSV compared with
 * LF line ends). The requests carry the API Gateway request id that the examples' problem bodies show.
 */
const DOC_REQUEST_ID = 'BQrKbh2WIAMEcXg=';
interface Example {
  readonly line: number;
  readonly status: number;
  readonly request: unknown;
  readonly accept: string;
  readonly expected: string;
}

function readExamples(markdown: string): Example[] {
  const examples: Example[] = [];
  const marker = /<!-- example(?: status=(\d+))? -->\n```json\n([\s\S]*?)\n```\n```(json|csv)\n([\s\S]*?)\n```/g;
  for (const m of markdown.matchAll(marker)) {
    examples.push({
      line: markdown.slice(0, m.index).split('\n').length,
      status: Number(m[1] ?? 200),
      request: JSON.parse(m[2] as string),
      accept: m[3] === 'csv' ? 'text/csv' : 'application/json',
      expected: m[4] as string,
    });
  }
  return examples;
}

/** The request language's document holds the worked examples; the README shows one of them too. */
const docs = ['docs/request-language.md', 'README.md'].map((file) => ({
  file,
  text: readFileSync(join(__dirname, '../..', file), 'utf8'),
}));
const examples = docs.flatMap(({ file, text }) => readExamples(text).map((e) => ({ ...e, file })));
const client = testClient();
const prefix = uniquePrefix('readme');
const handler = createQueryReportHandler({ engine: () => new OpenSearchEngine(client, { indexPrefix: prefix }) });

beforeAll(() => indexDocuments(client, prefix, { movementEvents, parkingEvents, parkingLotStats }));
afterAll(() => deleteIndices(client, prefix));

describe('the worked examples of docs/request-language.md and the README', () => {
  test('are all found (one per example marker)', () => {
    expect(examples.length).toBe(docs.reduce((n, { text }) => n + (text.match(/<!-- example/g)?.length ?? 0), 0));
    expect(examples.length).toBeGreaterThanOrEqual(5);
  });

  test.each(examples.map((e) => [e.file, e.line, e] as const))(
    'the example of %s at line %i answers as written',
    async (_file, _line, example) => {
      const response = await invoke(handler, {
        body: example.request,
        headers: { accept: example.accept },
        requestId: DOC_REQUEST_ID,
      });
      expect(response.status).toBe(example.status);
      expect(response.body.replace(/\r\n/g, '\n').replace(/\n$/, '')).toBe(example.expected);
    },
  );
});
