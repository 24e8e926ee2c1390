import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '#shared/openapi/document';

describe('the OpenAPI document', () => {
  test('is a valid OpenAPI 3.1 document', () => {
    // Prepare: the validator is ESM that reads its schemas through import.meta, so it runs in plain Node.
    const script = `
      import { Validator } from '@seriousme/openapi-schema-validator';
      const chunks = []; for await (const c of process.stdin) chunks.push(c);
      const result = await new Validator().validate(JSON.parse(Buffer.concat(chunks).toString()));
      console.log(JSON.stringify({ valid: result.valid, errors: result.errors ?? [] }));`;
    // Act
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { input: JSON.stringify(openApiDocument()), cwd: join(__dirname, '../../..') });
    // Assess
    expect(JSON.parse(output.toString())).toEqual({ valid: true, errors: [] });
  });

  test('the validator used above refuses a broken document', () => {
    const script = `
      import { Validator } from '@seriousme/openapi-schema-validator';
      const result = await new Validator().validate({ openapi: '3.1.0', info: { title: 'x' }, paths: { '/a': { get: { responses: 'none' } } } });
      console.log(JSON.stringify(result.valid));`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: join(__dirname, '../../..') });
    expect(output.toString().trim()).toBe('false');
  });

  test('is written to openapi.json as generated (run `npm run openapi` after a schema change)', () => {
    const written = JSON.parse(readFileSync(join(__dirname, '../../../openapi.json'), 'utf8'));
    expect(written).toEqual(openApiDocument());
  });

  test('describes the request with the validating schema: strict objects and the aggregation kinds', () => {
    const request = (openApiDocument() as { components: { schemas: { ReportRequest: Record<string, unknown> } } }).components.schemas.ReportRequest;
    expect(request).toMatchObject({ type: 'object', required: ['aggregations'], additionalProperties: false });
    const kinds = JSON.stringify(request).match(/"const":"(\w+)"/g)?.map((m) => m.slice(9, -1));
    expect(new Set(kinds)).toEqual(new Set(['terms', 'range', 'stats', 'dateHistogram', 'filter', 'filters', 'nested', 'reverseNested']));
  });
});
