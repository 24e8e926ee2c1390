import { reportHeaders, serverTiming } from '#commons/http/report-headers';

const D = Date.UTC(2024, 5, 1);

describe('reportHeaders: Server-Timing', () => {
  test('says rollup and the window read from rollup rows as an ISO 8601 interval', () => {
    expect(serverTiming({ source: 'rollup', rollupWindow: { from: D, to: D + 86_400_000 } })).toBe(
      'source;desc="rollup", rollup-window;desc="2024-06-01T00:00:00.000Z/2024-06-02T00:00:00.000Z"',
    );
  });

  test('says raw and why, as a quoted string that escapes quotes and backslashes', () => {
    expect(serverTiming({ source: 'raw', rawReason: 'the filter on "a\\b" is not on a rollup dimension' })).toBe(
      'source;desc="raw", raw-reason;desc="the filter on \\"a\\\\b\\" is not on a rollup dimension"',
    );
  });

  test('never puts anything but printable ASCII in the header', () => {
    expect(serverTiming({ source: 'mixed', rawReason: 'zone Europe/Zürich\nchanged' })).toBe(
      'source;desc="mixed", raw-reason;desc="zone Europe/Z?rich?changed"',
    );
  });

  test('is left out when the answer says nothing of its source (rollups off)', () => {
    const headers = reportHeaders({ mediaType: 'application/json', body: '[]', truncated: false });
    expect(Object.keys(headers)).not.toContain('Server-Timing');
    expect(
      reportHeaders({ mediaType: 'application/json', body: '[]', truncated: false, source: 'raw', rawReason: 'r' })[
        'Server-Timing'
      ],
    ).toBe('source;desc="raw", raw-reason;desc="r"');
  });
});
