import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { MIN_COMPRESSED_BYTES, negotiateCoding, ResponseCoding } from '#commons/http/content-encoding';
import { weakEtag } from '#commons/http/conditional-get';
import { renderProblem } from '#shared/report/render/problem';
import { NotFoundError } from '#shared/errors';

describe('negotiateCoding', () => {
  test('takes brotli when the client accepts it as much as gzip, whatever the order it lists them in', () => {
    expect([
      negotiateCoding('gzip, deflate, br'),
      negotiateCoding('gzip, deflate, br, zstd'),
      negotiateCoding('br, gzip'),
      negotiateCoding('*'),
    ]).toEqual(['br', 'br', 'br', 'br']);
  });

  test('follows the q-values: gzip when it weighs more, or is the only one accepted', () => {
    expect([
      negotiateCoding('br;q=0.5, gzip'),
      negotiateCoding('gzip'),
      negotiateCoding('GZIP'),
      negotiateCoding('gzip, deflate'),
    ]).toEqual(['gzip', 'gzip', 'gzip', 'gzip']);
  });

  test('sends the body as it is without Accept-Encoding, for identity, for codings it does not have, or when nothing is acceptable', () => {
    const none = [
      undefined,
      '',
      'identity',
      'deflate',
      'x-gzip',
      'gzip;q=0',
      'br;q=0, gzip;q=0',
      'identity;q=0',
      '*;q=0',
    ].map(negotiateCoding);
    expect(none).toEqual(Array(9).fill(undefined));
  });

  test('prefers identity when the client weighs it above every coding', () => {
    expect(negotiateCoding('identity, gzip;q=0.5')).toBeUndefined();
  });
});

describe('ResponseCoding', () => {
  // 1,200 bytes of JSON that compress well: over the threshold.
  const long = JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ n: i % 10 }))).padEnd(1200, ' ');
  const short = '{"a":1}';

  test('compresses a body from the threshold on, in the coding negotiated, and the bytes decode to the body', async () => {
    expect(Buffer.byteLength(long)).toBeGreaterThanOrEqual(MIN_COMPRESSED_BYTES);
    const gzip = await new ResponseCoding('gzip').encode(long);
    const br = await new ResponseCoding('br').encode(long);
    expect(gunzipSync(gzip!).toString('utf8')).toBe(long);
    expect(brotliDecompressSync(br!).toString('utf8')).toBe(long);
  });

  test('leaves a body under the threshold, or any body without a coding, as it is', async () => {
    expect(await new ResponseCoding('gzip').encode(short)).toBeUndefined();
    expect(await new ResponseCoding(undefined).encode(long)).toBeUndefined();
  });

  test('measures a body as it travels in the Lambda response: base64 of the compressed bytes, else a JSON string', async () => {
    const coding = new ResponseCoding('gzip');
    const encoded = (await coding.encode(long))!;
    // base64 takes 4 characters per 3 bytes (the last group padded), plus the 2 quotes of the JSON string.
    expect(await coding.sentBytes(long)).toBe(4 * Math.ceil(encoded.length / 3) + 2);
    // '{"a":1}' as a JSON string is "{\"a\":1}": 7 characters, 2 quotes escaped, 2 quotes around.
    expect(await coding.sentBytes(short)).toBe(7 + 2 + 2);
    expect(await new ResponseCoding(undefined).sentBytes(long)).toBe(Buffer.byteLength(JSON.stringify(long)));
  });

  test('compresses a body once when it is measured and then sent', async () => {
    const coding = new ResponseCoding('br');
    const first = coding.encode(long);
    expect(coding.encode(long)).toBe(first);
    expect(coding.encode(`${long} `)).not.toBe(first);
  });
});

describe('weakEtag', () => {
  test('is a weak entity tag that changes with the body and only with it', () => {
    expect(weakEtag('[]')).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
    expect(weakEtag('[]')).toBe(weakEtag('[]'));
    expect(weakEtag('[1]')).not.toBe(weakEtag('[]'));
  });
});

describe('renderProblem', () => {
  test('adds the request id as the extension member requestId, after the members of the problem', () => {
    const { body } = renderProblem(new NotFoundError('There is no location x.'), { requestId: 'Jq3q5j9xIAMEbAg=' });
    expect(body).toBe(
      '{"type":"/problems#not-found","title":"Not found","status":404,"detail":"There is no location x.","requestId":"Jq3q5j9xIAMEbAg="}',
    );
  });
});
