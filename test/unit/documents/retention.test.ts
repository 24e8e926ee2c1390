import { firstKeptMonth, formatMonth, isExpired, monthOf } from '#shared/documents/retention';
import { monthOfIndex } from '#shared/stores/opensearch/layout/indices';

const NOV_15_2026 = Date.parse('2026-11-15T12:00:00Z');

describe('retention by month', () => {
  it('keeps the current month and the 25 before it by default: from October 2024 in November 2026', () => {
    expect(firstKeptMonth(NOV_15_2026, 25)).toBe(202410);
    expect(isExpired(202409, NOV_15_2026, 25)).toBe(true);
    expect(isExpired(202410, NOV_15_2026, 25)).toBe(false);
    expect(isExpired(202611, NOV_15_2026, 25)).toBe(false);
  });

  it('crosses year ends both ways', () => {
    expect(firstKeptMonth(Date.parse('2025-01-01T00:00:00Z'), 1)).toBe(202412);
    expect(firstKeptMonth(Date.parse('2024-12-31T23:59:59.999Z'), 12)).toBe(202312);
    expect(monthOf(Date.parse('2024-12-10T00:00:00Z'), 1)).toBe(202501);
  });

  it('judges by UTC: the last millisecond of March is still March', () => {
    expect(firstKeptMonth(Date.parse('2024-04-30T23:59:59.999Z'), 1)).toBe(202403);
    expect(firstKeptMonth(Date.parse('2024-05-01T00:00:00Z'), 1)).toBe(202404);
  });

  it('keeps everything with 0 and refuses what is not a whole number of months', () => {
    expect(firstKeptMonth(NOV_15_2026, 0)).toBeUndefined();
    expect(isExpired(190001, NOV_15_2026, 0)).toBe(false);
    expect(() => firstKeptMonth(NOV_15_2026, -1)).toThrow(RangeError);
    expect(() => firstKeptMonth(NOV_15_2026, 1.5)).toThrow(RangeError);
    expect(() => firstKeptMonth(NOV_15_2026, 1201)).toThrow(RangeError);
  });

  it('reads the month of a monthly index from its name, and nothing else', () => {
    expect(formatMonth(202403)).toBe('2024.03');
    expect(monthOfIndex('p-', 'movementEvents', 'p-movement-events-2024.03')).toBe(202403);
    expect(monthOfIndex('p-', 'movementEvents', 'movement-events-2024.03')).toBeUndefined();
    expect(monthOfIndex('p-', 'movementEvents', 'p-parking-events-2024.03')).toBeUndefined();
    expect(monthOfIndex('p-', 'movementEvents', 'p-movement-events-archive')).toBeUndefined();
    expect(monthOfIndex('p-', 'movementEvents', 'p-movement-events-2024.13')).toBeUndefined();
    expect(monthOfIndex('p-', 'movementEvents', 'p-movement-events-old-2024.03')).toBeUndefined();
  });
});
