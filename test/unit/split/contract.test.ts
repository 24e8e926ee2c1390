import { type AppError, EngineUnavailableError, TooManyBucketsError } from '#shared/errors';
import { decodeSliceError, encodeSliceError, SLICE_ERROR } from '#shared/report/split/contract';

/** What crosses the Step Functions boundary: the Lambda runtime's envelope around the thrown error. */
const envelope = (e: Error): string =>
  JSON.stringify({ errorType: e.name, errorMessage: e.message, trace: ['at worker'] });

const fields = (e: AppError) => ({
  status: e.status,
  slug: e.slug,
  title: e.title,
  detail: e.detail,
  headers: e.headers,
  extensions: e.extensions,
  problem: e.toProblem(),
});

describe('the split error codec', () => {
  test.each([
    ['a 422 with its limit', new TooManyBucketsError(2000)],
    ['a 503 with Retry-After', new EngineUnavailableError('The report engine is busy; try again shortly.', 7)],
  ])('brings %s back as the slice threw it, through the Lambda envelope and as a bare message', (_, thrown) => {
    // Act
    const sent = encodeSliceError(thrown);
    const viaLambda = decodeSliceError(sent.name, envelope(sent));
    const local = decodeSliceError(sent.name, sent.message);
    // Assess
    expect(sent.name).toBe(SLICE_ERROR);
    expect(viaLambda && fields(viaLambda)).toEqual(fields(thrown));
    expect(local && fields(local)).toEqual(fields(thrown));
  });

  test('leaves errors that are not a slice’s, or whose problem type is unknown, undecoded', () => {
    // Prepare
    const forged = JSON.stringify({ status: 418, slug: 'teapot', title: 'x', detail: 'y' });
    // Act & Assess
    expect(decodeSliceError('States.Timeout', envelope(encodeSliceError(new TooManyBucketsError(1))))).toBeUndefined();
    expect(decodeSliceError(SLICE_ERROR, forged)).toBeUndefined();
    expect(decodeSliceError(SLICE_ERROR, 'not json')).toBeUndefined();
    expect(decodeSliceError(SLICE_ERROR, undefined)).toBeUndefined();
  });
});
