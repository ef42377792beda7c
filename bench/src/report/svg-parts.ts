/** The chart's drawing parts, shared by the main chart (svg.ts) and the Cloudflare panel. */

export const LABEL_W = 400;
export const BAR_W = 340;
export const ROW_H = 22;
export const COLORS: Record<string, string> = {
  bare: '#9e9e9e',
  'edge-mcp': '#1b7f5c',
  'sdk-v2': '#4f6fb0',
  'sdk-v1': '#8a63b8',
  'mcp-lite': '#c0843a',
  agents: '#d35400',
};

export const esc = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function text(x: number, y: number, content: string, attrs = ''): string {
  return `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${attrs}>${esc(content)}</text>`;
}

/** A bar from `x0` to the median and a whisker over min–max (only with more than one round). */
export function rangeBar(
  x0: number,
  y: number,
  xMedian: number,
  xMin: number,
  xMax: number,
  fill: string,
  rounds: number,
): string {
  const out = [
    `<rect x="${x0}" y="${y + 4}" width="${Math.max(0, xMedian - x0).toFixed(1)}" height="${ROW_H - 8}" fill="${fill}" fill-opacity="0.85"/>`,
  ];
  if (rounds > 1) {
    const mid = y + ROW_H / 2;
    out.push(
      `<line x1="${xMin.toFixed(1)}" x2="${xMax.toFixed(1)}" y1="${mid}" y2="${mid}" stroke="#111" stroke-width="1.5"/>`,
      `<line x1="${xMin.toFixed(1)}" x2="${xMin.toFixed(1)}" y1="${mid - 5}" y2="${mid + 5}" stroke="#111" stroke-width="1.5"/>`,
      `<line x1="${xMax.toFixed(1)}" x2="${xMax.toFixed(1)}" y1="${mid - 5}" y2="${mid + 5}" stroke="#111" stroke-width="1.5"/>`,
    );
  }
  return out.join('');
}
