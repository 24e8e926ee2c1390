import { presetRange } from '../../../web/src/model/presets';
import { fromQuery, toQuery } from '../../../web/src/model/url-state';
import type { ReportForm } from '../../../web/src/model/request';

describe('presetRange', () => {
  // 2026-03-04 is a Wednesday.
  test.each([
    ['today', '2026-03-04', '2026-03-04'],
    ['yesterday', '2026-03-03', '2026-03-03'],
    ['last7', '2026-02-26', '2026-03-04'],
    ['last30', '2026-02-03', '2026-03-04'],
    ['thisWeek', '2026-03-02', '2026-03-04'],
    ['lastWeek', '2026-02-23', '2026-03-01'],
    ['thisMonth', '2026-03-01', '2026-03-04'],
    ['lastMonth', '2026-02-01', '2026-02-28'],
  ] as const)('%s', (id, firstDay, lastDay) => expect(presetRange(id, '2026-03-04')).toEqual({ firstDay, lastDay }));
  test('a Monday is its own week start; January’s last month is December', () => {
    expect(presetRange('thisWeek', '2026-03-02')).toEqual({ firstDay: '2026-03-02', lastDay: '2026-03-02' });
    expect(presetRange('lastMonth', '2026-01-10')).toEqual({ firstDay: '2025-12-01', lastDay: '2025-12-31' });
  });
});

describe('the URL state', () => {
  const form: ReportForm = {
    locationIds: ['berlin-mall', 'tokyo-station'],
    source: 'parkingEvents',
    firstDay: '2026-03-01',
    lastDay: '2026-03-04',
    overTime: true,
    interval: '15m',
    timeZone: 'Asia/Tokyo',
    breakdown: 'spotId',
    statsField: 'duration',
    stats: ['min', 'max'],
    split: true,
  };
  test('a report round-trips through its query string', () => {
    const query = toQuery({ view: 'report', report: { form, kind: 'stacked', preset: 'thisMonth' } });
    expect(query).toBe(
      '?view=report&locations=berlin-mall%2Ctokyo-station&source=parkingEvents&preset=thisMonth&from=2026-03-01&to=2026-03-04&tz=Asia%2FTokyo&overTime=1&interval=15m&by=spotId&measure=duration&stats=min%2Cmax&split=1&kind=stacked',
    );
    expect(fromQuery(query)).toEqual({ view: 'report', report: { form, kind: 'stacked', preset: 'thisMonth' } });
  });
  test('unknown values are left to the page’s defaults; no view is the home page, a location alone its dashboard', () => {
    expect(fromQuery('?view=report&source=nope&stats=min,mode&preset=someday')).toEqual({
      view: 'report',
      report: { form: { stats: ['min'] }, kind: 'lines' },
    });
    expect(fromQuery('')).toEqual({ view: 'home' });
    expect(fromQuery('?view=dashboard')).toEqual({ view: 'dashboard' });
    expect(fromQuery('?view=sites')).toEqual({ view: 'sites' });
    expect(toQuery({ view: 'sites' })).toBe('?view=sites');
    expect(fromQuery('?location=berlin-mall')).toEqual({ view: 'dashboard', location: 'berlin-mall' });
  });
});
