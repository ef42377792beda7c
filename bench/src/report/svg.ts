/**
 * The run's chart, drawn from the results (no hand drawing). Every figure is a bar to its median
 * with a whisker over its rounds' min–max: tools/call throughput as a ratio to each target's
 * baseline, start-up time per runtime, and every goal as headroom against its threshold (coloured
 * by its worst round).
 */
import type { Spread } from '../lib/stats.ts';
import { formatLoad } from '../lib/system.ts';
import { cloudflarePanel } from './cloudflare.ts';
import { formatGoalValue, formatThreshold, n, verdict } from './format.ts';
import type { Goal } from './goal.ts';
import type { Report } from './report.ts';
import { BAR_W, COLORS, esc, LABEL_W, ROW_H, rangeBar, text } from './svg-parts.ts';

const WIDTH = 1200;
/** A vertical rule labelled above it (or below it: `below`, so close rules do not collide). */
function vline(
  x: number,
  y1: number,
  y2: number,
  label: string,
  dashed: boolean,
  below = false,
  anchor: 'start' | 'middle' | 'end' = 'middle',
): string {
  const dash = dashed ? ' stroke-dasharray="4 3"' : '';
  return (
    `<line x1="${x.toFixed(1)}" x2="${x.toFixed(1)}" y1="${y1}" y2="${y2}" stroke="#444"${dash}/>` +
    text(x, below ? y2 + 12 : y1 - 4, label, `text-anchor="${anchor}" class="small"`)
  );
}

const range = (value: Spread, digits: number, suffix: string) =>
  value.n < 2
    ? `${n(value.median, digits)}${suffix}`
    : `${n(value.median, digits)}${suffix} (${n(value.min, digits)}–${n(value.max, digits)})`;

interface Panel {
  svg: string;
  height: number;
}

function throughputPanel(report: Report, top: number): Panel {
  const rows = report.results.throughput.filter((row) => row.ratio !== null || row.rps !== null);
  if (rows.length === 0) return { svg: '', height: 0 };
  const max = Math.max(1.1, ...rows.map((row) => row.ratio?.max ?? 1));
  const scale = BAR_W / max;
  const out: string[] = [
    text(
      10,
      top + 16,
      'tools/call echo: requests/s as a ratio to the target\u2019s baseline, same round (bar: median; whisker: min–max of the rounds)',
      'class="title"',
    ),
  ];
  const y0 = top + 44;
  rows.forEach((row, i) => {
    const y = y0 + i * ROW_H;
    out.push(text(LABEL_W - 8, y + 15, `${row.runtime} · ${row.label}`, 'text-anchor="end"'));
    const ratio = row.ratio ?? { median: 1, min: 1, max: 1, n: 1, values: [1] };
    const x = (v: number) => LABEL_W + v * scale;
    out.push(
      rangeBar(
        LABEL_W,
        y,
        x(ratio.median),
        x(ratio.min),
        x(ratio.max),
        COLORS[row.library] ?? '#666',
        ratio.n,
      ),
    );
    const detail = row.ratio
      ? `${range(row.ratio, 2, '×')} vs ${row.baseline} · ${n(row.rps?.median)} req/s · p99 ${n(row.p99Ms?.median)} ms · ${row.answer}`
      : `ceiling · ${row.rps ? range(row.rps, 0, ' req/s') : 'failed'}`;
    out.push(text(Math.max(x(ratio.max), x(ratio.median)) + 8, y + 15, detail, 'class="small"'));
  });
  const bottom = y0 + rows.length * ROW_H;
  out.push(vline(LABEL_W + scale, y0 - 6, bottom, 'baseline = 1', false));
  out.push(vline(LABEL_W + 0.9 * scale, y0 - 6, bottom, '0.9 ', true, true, 'start'));
  out.push(vline(LABEL_W + 0.8 * scale, y0 - 6, bottom, ' 0.8', true, true, 'end'));
  return { svg: out.join('\n'), height: bottom - top + 24 };
}

function startupPanel(report: Report, top: number): Panel {
  const rows = report.results.startup.filter((row) => row.ms !== null);
  if (rows.length === 0) return { svg: '', height: 0 };
  const max = Math.max(...rows.map((row) => row.ms!.max));
  const scale = BAR_W / max;
  const out: string[] = [
    text(
      10,
      top + 16,
      'start-up: process spawn → first answered tools/call, ms (bar: median; whisker: min–max of every start)',
      'class="title"',
    ),
  ];
  const y0 = top + 36;
  rows.forEach((row, i) => {
    const y = y0 + i * ROW_H;
    const ms = row.ms!;
    const x = (v: number) => LABEL_W + v * scale;
    out.push(text(LABEL_W - 8, y + 15, `${row.runtime} · ${row.label}`, 'text-anchor="end"'));
    out.push(
      rangeBar(LABEL_W, y, x(ms.median), x(ms.min), x(ms.max), COLORS[row.library] ?? '#666', ms.n),
    );
    const ratio = row.ratio ? ` · ${range(row.ratio, 2, '×')} bare` : '';
    out.push(text(x(ms.max) + 8, y + 15, `${range(ms, 1, ' ms')}${ratio}`, 'class="small"'));
  });
  return { svg: out.join('\n'), height: rows.length * ROW_H + 36 + 10 };
}

/** >= 1 when the value meets the goal; log scale from 0.1 to 100. */
function headroom(goal: Goal, value: number): number {
  if (goal.comparison === '>=') return value / goal.threshold;
  return value <= 0 ? 100 : goal.threshold / value;
}

function goalsPanel(goals: Goal[], top: number): Panel {
  const min = Math.log10(0.1);
  const span = Math.log10(100) - min;
  const x = (h: number) =>
    LABEL_W + ((Math.log10(Math.min(100, Math.max(0.1, h))) - min) / span) * BAR_W;
  const out: string[] = [
    text(
      10,
      top + 16,
      'targets: headroom (measured vs goal, log scale; right of 1 = met; whisker: the rounds; colour: the worst round)',
      'class="title"',
    ),
  ];
  const y0 = top + 44;
  goals.forEach((goal, i) => {
    const y = y0 + i * ROW_H;
    out.push(text(LABEL_W - 8, y + 15, goal.label, 'text-anchor="end"'));
    const detail = `${formatGoalValue(goal)} ${formatThreshold(goal)}: ${verdict(goal)}`;
    if (goal.value === null) {
      out.push(text(LABEL_W + 6, y + 15, detail, 'class="small"'));
      return;
    }
    const v = goal.value;
    const hs = [headroom(goal, v.min), headroom(goal, v.max)];
    const fill = goal.met ? '#1b7f5c' : '#c0392b';
    out.push(
      rangeBar(
        LABEL_W,
        y,
        x(headroom(goal, v.median)),
        x(Math.min(...hs)),
        x(Math.max(...hs)),
        fill,
        v.n,
      ),
    );
    out.push(
      text(
        Math.max(x(Math.max(...hs)), x(headroom(goal, v.median))) + 8,
        y + 15,
        detail,
        'class="small"',
      ),
    );
  });
  const bottom = y0 + goals.length * ROW_H;
  for (const tick of [0.1, 1, 10, 100]) {
    out.push(vline(x(tick), y0 - 6, bottom, tick === 1 ? 'goal' : `${tick}×`, tick !== 1));
  }
  return { svg: out.join('\n'), height: bottom - top + 16 };
}

export function renderSvg(report: Report): string {
  const c = report.config as { rounds?: number };
  const load = report.load;
  const noisy = load?.noisy;
  const header =
    `edge-mcp bench · ${report.date.slice(0, 16).replace('T', ' ')} UTC · ${report.machine.cpuModel} × ${report.machine.cpuCount} · ` +
    `Node ${report.versions.node} · Deno ${report.versions.deno} · Bun ${report.versions.bun} · ${c.rounds ?? 1} round(s)` +
    (load
      ? ` · load ${formatLoad(load.start)} → ${formatLoad(load.end)}${noisy ? ' (noisy)' : ''}`
      : '');
  const panels: Panel[] = [];
  let top = 30;
  for (const draw of [
    (t: number) => throughputPanel(report, t),
    (t: number) => startupPanel(report, t),
    (t: number) => cloudflarePanel(report.results.cloudflare, t),
    (t: number) => goalsPanel(report.goals, t),
  ]) {
    const panel = draw(top);
    if (panel.height === 0) continue;
    panels.push(panel);
    top += panel.height + 10;
  }
  const height = top;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<title>${esc(header)}</title>`,
    '<style>.title{font-size:14px;font-weight:600}.small{font-size:11px;fill:#333}</style>',
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    text(10, 18, header, noisy ? 'class="small" style="fill:#c0392b"' : 'class="small"'),
    ...panels.map((panel) => panel.svg),
    '</svg>',
    '',
  ].join('\n');
}
