import { execFileSync } from 'node:child_process';
import { curlCommand, shellQuote } from '../../../web/src/model/curl';

describe('the request as a curl command', () => {
  test('quotes words so that a POSIX shell reads them back unchanged', () => {
    for (const word of [`it's`, `"$TOKEN" \`x\` \\n`, `'`, '', 'a b\nc']) {
      expect(execFileSync('bash', ['-c', `printf '%s' ${shellQuote(word)}`]).toString()).toBe(word);
    }
  });

  test('posts the body to the page’s origin with $TOKEN, never the token itself', () => {
    expect(
      curlCommand('http://localhost:3000', { aggregations: [{ type: 'terms', field: "o'clock" }] }, 'text/csv'),
    ).toBe(
      `curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -H 'Accept: text/csv' 'http://localhost:3000/reports:query' -d '{"aggregations":[{"type":"terms","field":"o'\\''clock"}]}'`,
    );
  });
});
