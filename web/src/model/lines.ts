import type { Series, TimeSeriesAnswer } from './answer';

/**
 * In and out, from the counting lines: a sensor group's line says which direction (`A` or `B`) of
 * which camera's line is "in" (`GET /locations/{id}`, `sensorGroups[].lines[].inDirection`), so the
 * crossings the cameras report as `A`/`B` are shown as entries and exits of the group's area.
 */

export interface CountingLine {
  readonly trackingCameraId: string;
  readonly lineId: string;
  readonly inDirection: 'A' | 'B';
}

export interface GroupLines {
  readonly id: number;
  readonly name: string;
  readonly lines: readonly CountingLine[];
}

/**
 * The series name a crossings report by camera, line and direction gives a line's direction (names joined by spaces,
 * direction last).
 */
const crossingSeriesName = (camera: string, line: string, end: 'A' | 'B'): string => `${camera} ${line} ${end}`;

const other = (d: 'A' | 'B'): 'A' | 'B' => (d === 'A' ? 'B' : 'A');

interface LineRole {
  readonly label: string;
  readonly in: string;
  readonly out: string;
}

/** Each distinct counting line (a camera's line listed by two groups counts once) with the words for it. */
function lineRoles(groups: readonly GroupLines[]): LineRole[] {
  const byLine = new Map<string, { line: CountingLine; names: string[] }>();
  for (const group of groups) {
    for (const line of group.lines) {
      const key = JSON.stringify([line.trackingCameraId, line.lineId]);
      const name = group.lines.length === 1 ? group.name : `${group.name} (${line.lineId})`;
      const seen = byLine.get(key);
      if (seen) seen.names.push(name);
      else byLine.set(key, { line, names: [name] });
    }
  }
  return [...byLine.values()].map(({ line, names }) => ({
    label: names.join(' / '),
    in: crossingSeriesName(line.trackingCameraId, line.lineId, line.inDirection),
    out: crossingSeriesName(line.trackingCameraId, line.lineId, other(line.inDirection)),
  }));
}

/**
 * The crossings answer with each counting line's directions named `<area> in` and `<area> out`,
 * those first (in, then out, per line, in the groups' order), then any other line as the cameras name
 * it. A configured direction the answer has no series for had no crossing: a series of zeros.
 */
export function crossingsInOut(answer: TimeSeriesAnswer, groups: readonly GroupLines[]): TimeSeriesAnswer {
  const known = new Map(answer.series.map((s) => [s.name, s]));
  const zeros = answer.times.map(() => 0);
  const named: Series[] = [];
  const used = new Set<string>();
  for (const role of lineRoles(groups)) {
    for (const [name, word] of [
      [role.in, 'in'],
      [role.out, 'out'],
    ] as const) {
      named.push({
        name: `${role.label} ${word}`,
        values: known.get(name)?.values ?? zeros,
        heading: { group: role.label, label: word },
      });
      used.add(name);
    }
  }
  return { ...answer, series: [...named, ...answer.series.filter((s) => !used.has(s.name))] };
}

/** Entries and exits over an answer (up to its last value): the sums of every counting line's in and out series. */
export function entriesAndExits(
  answer: TimeSeriesAnswer,
  groups: readonly GroupLines[],
): { entries: number; exits: number } {
  const totals = new Map(answer.series.map((s) => [s.name, s.values.reduce<number>((sum, v) => sum + (v ?? 0), 0)]));
  let entries = 0;
  let exits = 0;
  for (const role of lineRoles(groups)) {
    entries += totals.get(role.in) ?? 0;
    exits += totals.get(role.out) ?? 0;
  }
  return { entries, exits };
}

/**
 * Without the lines' directions (a service that does not say them): each line's two directions under
 * the line's name in a table (`<camera> <line>` over `A` and `B`), as the cameras name them.
 */
export function crossingsByLine(answer: TimeSeriesAnswer): TimeSeriesAnswer {
  return {
    ...answer,
    series: answer.series.map((s) => {
      const m = /^(.*) ([AB])$/.exec(s.name);
      return m ? { ...s, heading: { group: m[1] as string, label: m[2] as string } } : s;
    }),
  };
}
