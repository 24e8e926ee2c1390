/** Downloads made in the page: a blob saved under a name, and a chart as a PNG image. */

export function downloadBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * A chart as a PNG: its title, the canvas uPlot drew (on white: the canvas itself is transparent) and
 * the legend's names in their colours below, at the canvas's own resolution.
 */
export async function chartPng(
  chart: HTMLElement,
  legend: readonly { name: string; color: string; dash?: readonly number[] }[],
  title: string,
): Promise<Blob> {
  const source = chart.querySelector('canvas');
  if (!source) throw new Error('no chart drawn');
  const scale = source.width / Math.max(1, source.getBoundingClientRect().width);
  const line = Math.round(22 * scale);
  const out = document.createElement('canvas');
  out.width = source.width;
  out.height = source.height + 2 * line + Math.ceil(legend.length / 4) * line;
  const g = out.getContext('2d') as CanvasRenderingContext2D;
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, out.width, out.height);
  g.fillStyle = '#1a1a1a';
  g.font = `600 ${Math.round(15 * scale)}px system-ui, sans-serif`;
  g.fillText(title, 8 * scale, line * 0.75);
  g.drawImage(source, 0, line);
  g.font = `${Math.round(13 * scale)}px system-ui, sans-serif`;
  legend.forEach((entry, i) => {
    const x = 8 * scale + (i % 4) * (out.width / 4);
    const y = source.height + line + Math.floor(i / 4) * line + line * 0.7;
    // The swatch is drawn as the series is: solid, or dashed in the same colour.
    g.strokeStyle = entry.color;
    g.lineWidth = 3 * scale;
    g.setLineDash((entry.dash ?? []).map((d) => d * scale * 0.6));
    g.beginPath();
    g.moveTo(x, y - line * 0.3);
    g.lineTo(x + 18 * scale, y - line * 0.3);
    g.stroke();
    g.setLineDash([]);
    g.fillStyle = '#1a1a1a';
    g.fillText(entry.name, x + 24 * scale, y);
  });
  return new Promise((resolve, reject) =>
    out.toBlob((b) => (b ? resolve(b) : reject(new Error('the image could not be made'))), 'image/png'),
  );
}
