import { placeProblem, toProblem } from '../../../web/src/model/problems';
import { buildRequest } from '../../../web/src/model/request';

const { pointers } = buildRequest({
  locationIds: [],
  source: 'movementEvents',
  firstDay: '2026-11-01',
  lastDay: '2026-11-02',
  overTime: true,
  interval: '1h',
  timeZone: 'UTC',
  breakdown: 'label',
  statsField: '',
  stats: [],
  split: false,
});

describe('placing a problem+json answer on the form', () => {
  test('puts each validation error next to the control its pointer names, the rest in the summary only', () => {
    const placed = placeProblem(
      {
        type: '/problems#validation',
        title: 'Invalid request',
        status: 400,
        detail: '/aggregations/0/interval: must be … (and 2 more)',
        errors: [
          { path: '/aggregations/0/interval', message: 'must be an interval' },
          { path: '/aggregations/1/field', message: 'unknown field' },
          { path: '/aggregations/1/size', message: 'unknown property' },
          { path: '/nestedFilters', message: 'not ours' },
        ],
      },
      pointers,
    );
    expect(placed.summary).toBe('Invalid request: /aggregations/0/interval: must be … (and 2 more)');
    expect([...placed.atControls]).toEqual([
      ['interval', ['must be an interval']],
      ['breakdown', ['unknown field', 'unknown property']],
    ]);
  });

  test('puts a 401 at the token and a 422 for too many buckets at the split option', () => {
    expect([
      ...placeProblem(
        {
          type: '/problems#unauthorized',
          title: 'Unauthorized',
          status: 401,
          detail: 'A valid bearer token is required.',
        },
        pointers,
      ).atControls,
    ]).toEqual([['token', ['A valid bearer token is required.']]]);
    expect([
      ...placeProblem(
        { type: '/problems#too-many-buckets', title: 'Too many buckets', status: 422, detail: 'Add "splitInterval".' },
        pointers,
      ).atControls,
    ]).toEqual([['split', ['Add "splitInterval".']]]);
  });

  test('makes a problem of an answer that is not problem+json', () => {
    expect(toProblem(502, 'Bad Gateway', 'text/html', '<h1>Bad gateway</h1>')).toEqual({
      type: 'about:blank',
      title: 'Bad Gateway',
      status: 502,
      detail: '<h1>Bad gateway</h1>',
    });
    expect(toProblem(401, 'Unauthorized', 'application/json', '{"message":"Unauthorized"}')).toEqual({
      type: 'about:blank',
      title: 'Unauthorized',
      status: 401,
      detail: 'Unauthorized',
    });
    expect(toProblem(504, '', null, '')).toEqual({
      type: 'about:blank',
      title: 'HTTP 504',
      status: 504,
      detail: 'The service answered 504.',
    });
    expect(
      toProblem(
        400,
        'Bad Request',
        'application/problem+json',
        '{"type":"t","title":"Invalid","status":400,"detail":"d"}',
      ),
    ).toEqual({ type: 't', title: 'Invalid', status: 400, detail: 'd' });
  });
});
