import { EARLIER_DASH, PALETTE, REPEAT_DASH, seriesStyles } from '../../../web/src/model/palette';

/** WCAG 2 relative luminance and contrast ratio (https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio). */
const luminance = (hex: string): number => {
  const [r, g, b] = [1, 3, 5]
    .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const contrast = (a: string, b: string): number => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
};

describe('the series colours', () => {
  test('the formula gives the known extremes', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#767676', '#ffffff')).toBeGreaterThan(4.5);
  });

  test('each stands out at least 3:1 from the white chart background (WCAG 1.4.11) and no two are alike', () => {
    for (const color of PALETTE) expect({ color, ok: contrast(color, '#ffffff') >= 3 }).toEqual({ color, ok: true });
    expect(new Set(PALETTE).size).toBe(PALETTE.length);
  });
});

describe('the style of each series', () => {
  test('draws an earlier period in the colour of the series it is paired with, dashed; the others take the palette in order', () => {
    const styles = seriesStyles([{}, {}, { earlier: true, pairOf: 0 }, { earlier: true, pairOf: 1 }]);
    expect(styles).toEqual([
      { color: PALETTE[0] },
      { color: PALETTE[1] },
      { color: PALETTE[0], dash: EARLIER_DASH },
      { color: PALETTE[1], dash: EARLIER_DASH },
    ]);
  });

  test('gives an earlier series without a partner a colour of its own, and dots the colours that come round again', () => {
    const nine = Array.from({ length: 9 }, () => ({}));
    const styles = seriesStyles([...nine, { earlier: true }]);
    expect(styles[8]).toEqual({ color: PALETTE[0], dash: REPEAT_DASH });
    expect(styles[9]).toEqual({ color: PALETTE[1], dash: EARLIER_DASH });
  });
});
