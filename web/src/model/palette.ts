/**
 * Series colours: distinct for the common kinds of colour blindness (after Okabe and Ito) and each at
 * least 3:1 against the white background, as WCAG 1.4.11 asks of graphics (a unit test checks).
 * Past the eighth series the colours repeat with dashed lines.
 */
export const PALETTE = ['#0072b2', '#d55e00', '#007a5e', '#b8327f', '#6a3d9a', '#a16800', '#8c564b', '#4d4d4d'] as const;

export const colorOf = (i: number): string => PALETTE[i % PALETTE.length] as string;

/** Dash pattern of series i: solid for the first round of colours, dashed after. */
export const dashOf = (i: number): number[] | undefined => (i >= PALETTE.length ? [6, 3] : undefined);
