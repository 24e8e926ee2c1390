/**
 * Series colours: distinct for the common kinds of colour blindness (after Okabe and Ito) and each at
 * least 3:1 against the white background, as WCAG 1.4.11 asks of graphics (a unit test checks).
 * Past the eighth series the colours repeat with dashed lines.
 */
export const PALETTE = [
  '#0072b2',
  '#d55e00',
  '#007a5e',
  '#b8327f',
  '#6a3d9a',
  '#a16800',
  '#8c564b',
  '#4d4d4d',
] as const;

export const colorOf = (i: number): string => PALETTE[i % PALETTE.length] as string;

/** The earlier period of a comparison: the same colour as its series, dashed. */
export const EARLIER_DASH = [7, 4];
/** Past the eighth series the colours come round again, dotted, so no dash pattern means two things. */
export const REPEAT_DASH = [2, 3];

export interface SeriesStyle {
  readonly color: string;
  /** Canvas dash pattern; none is a solid line. */
  readonly dash?: readonly number[];
}

/**
 * The colour and line of each series: the current series take the palette in order; a series of the
 * earlier period (`earlier`) takes the colour of the current series it is paired with (`pairOf`, its
 * index) and a dashed line, so "the same thing a week before" reads as one colour in two strokes; one
 * without a partner takes the next colour, dashed.
 */
export function seriesStyles(
  series: readonly { readonly earlier?: boolean; readonly pairOf?: number }[],
): SeriesStyle[] {
  const rank: number[] = [];
  let next = 0;
  series.forEach((s, i) => {
    if (!s.earlier || s.pairOf === undefined) rank[i] = next++;
  });
  return series.map((s, i) => {
    const k = s.earlier && s.pairOf !== undefined ? (rank[s.pairOf] ?? 0) : (rank[i] as number);
    const repeat = k >= PALETTE.length;
    return s.earlier
      ? { color: colorOf(k), dash: EARLIER_DASH }
      : repeat
        ? { color: colorOf(k), dash: REPEAT_DASH }
        : { color: colorOf(k) };
  });
}
