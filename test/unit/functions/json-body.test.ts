import { gzipSync } from 'node:zlib';
import { createQueryReportHandler } from '../../../functions/query-report';
import { invoke } from '../../../bin/dev/lambda-events';

/** What a report body may not be, refused at the edge with the status and the limit named: never a 500. */
const report = createQueryReportHandler({
  engine: () => ({ maxBuckets: 65_535, run: () => Promise.reject(new Error('the engine must not be reached')) }),
});
const terms = '"aggregations":[{"type":"terms","field":"label"}]';

describe('a JSON request body', () => {
  test('nested 2,000 levels deep under an unknown key is a 400 naming the limit of 64, not a stack overflow', async () => {
    // Prepare
    const rawBody = `{${terms},"x":${'['.repeat(2000)}${']'.repeat(2000)}}`;
    // Act
    const answer = await invoke(report, { rawBody });
    // Assess
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({
      type: '/problems#malformed-body',
      maxDepth: 64,
      detail: 'The body nests arrays and objects more than 64 levels deep; a report needs far fewer.',
    });
  });

  test('takes 64 levels, and brackets inside strings do not count', async () => {
    const deep = `{${terms},"x":${'['.repeat(63)}"[[[[{{{{\\"[["${']'.repeat(63)}}`;
    const answer = await invoke(report, { rawBody: deep });
    // Past the depth check: the unknown key is the validator's to refuse.
    expect([answer.status, answer.json<{ type: string }>().type]).toEqual([400, '/problems#validation']);
  });

  test('with a Content-Encoding is a 415 whose Accept-Encoding says identity, not "not valid JSON"', async () => {
    const answer = await invoke(report, {
      binaryBody: gzipSync(`{${terms}}`),
      headers: { 'content-encoding': 'gzip' },
    });
    expect([answer.status, answer.headers['accept-encoding'], answer.json<{ type: string }>().type]).toEqual([
      415,
      'identity',
      '/problems#unsupported-media-type',
    ]);
    expect(answer.json<{ detail: string }>().detail).toBe(
      'Content-Encoding gzip is not supported (send the body as it is); the body must be application/json.',
    );
  });
});
