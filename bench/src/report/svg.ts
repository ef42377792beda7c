/**
 * The run's chart, drawn from the results (no hand drawing): requests/s of every target as a
 * ratio to the bare handler of its runtime, then every goal as headroom against its threshold.
 */
import type { Environment } from './environment.ts';
import type { Goal, Results } from './goals.ts';
import { formatGoalValue } from './table.ts';

const WIDTH = 1060;
const LABEL_W = 380;
const BAR_W = 360;
const ROW_H = 22;
const COLORS: Record<string, string> = {
  bare: '#9e9e9e',
  'edge-mcp': '#1b7f5c',
  'sdk-v2': '#4f6fb0',
  'sdk-v1': '#8a63b8',
  'mcp-lite': '#c0843a',
};

const esc = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function text(x: number, y: number, content: string, attrs = ''): string {
  return `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${attrs}>${esc(content)}</text>`;
}

function vline(x: number, y1: number, y2: number, label: string, dashed: boolean): string {
  const dash = dashed ? ' stroke-dasharray="4 3"' : '';
  return (
    `<line x1="${x.toFixed(1)}" x2="${x.toFixed(1)}" y1="${y1}" y2="${y2}" stroke="#444"${dash}/>` +
    text(x, y1 - 4, label, 'text-anchor="middle" class="small"')
  );
}

function throughputPanel(results: Results, top: number): { svg: string; height: number } {
  const rows = results.throughput.filter((row) => row.ratioToBare !== null);
  const max = Math.max(1.1, ...rows.map((row) => row.ratioToBare ?? 0));
  const scale = BAR_W / max;
  const out: string[] = [
    text(
      10,
      top + 16,
      'tools/call echo: requests/s as a ratio to the bare handler of the same runtime',
      'class="title"',
    ),
  ];
  const y0 = top + 44;
  rows.forEach((row, i) => {
    const y = y0 + i * ROW_H;
    const w = (row.ratioToBare ?? 0) * scale;
    out.push(text(LABEL_W - 8, y + 14, `${row.runtime} · ${row.label}`, 'text-anchor="end"'));
    out.push(
      `<rect x="${LABEL_W}" y="${y + 3}" width="${w.toFixed(1)}" height="${ROW_H - 6}" fill="${COLORS[row.library] ?? '#666'}"/>`,
    );
    const detail = `${(row.ratioToBare ?? 0).toFixed(2)}× · ${Math.round(row.rps).toLocaleString('en-US')} req/s · p99 ${row.p99Ms} ms · ${row.answer}`;
    out.push(text(LABEL_W + w + 6, y + 14, detail, 'class="small"'));
  });
  const bottom = y0 + rows.length * ROW_H;
  out.push(vline(LABEL_W + scale, y0 - 6, bottom, 'bare = 1', false));
  out.push(vline(LABEL_W + 0.7 * scale, y0 - 6, bottom, '0.7 goal', true));
  return { svg: out.join('\n'), height: bottom - top + 16 };
}

/** >= 1 when the goal is met; log scale from 0.1 to 100. */
function headroom(goal: Goal): number | null {
  if (goal.value === null) return null;
  if (goal.comparison === '>=') return goal.value / goal.threshold;
  return goal.value <= 0 ? 100 : goal.threshold / goal.value;
}

function goalsPanel(goals: Goal[], top: number): { svg: string; height: number } {
  const min = Math.log10(0.1);
  const span = Math.log10(100) - min;
  const x = (h: number) =>
    LABEL_W + ((Math.log10(Math.min(100, Math.max(0.1, h))) - min) / span) * BAR_W;
  const out: string[] = [
    text(
      10,
      top + 16,
      'targets: headroom (measured vs goal, log scale; right of 1 = met)',
      'class="title"',
    ),
  ];
  const y0 = top + 44;
  goals.forEach((goal, i) => {
    const y = y0 + i * ROW_H;
    const h = headroom(goal);
    out.push(text(LABEL_W - 8, y + 14, goal.label, 'text-anchor="end"'));
    const threshold = goal.unit === '×' ? `${goal.threshold}×` : `${goal.threshold} ${goal.unit}`;
    const verdict = goal.met === null ? 'not measured' : goal.met ? 'met' : 'MISSED';
    const detail = `${formatGoalValue(goal)} ${goal.comparison} ${threshold}: ${verdict}`;
    if (h === null) {
      out.push(text(LABEL_W + 6, y + 14, detail, 'class="small"'));
      return;
    }
    const w = x(h) - LABEL_W;
    out.push(
      `<rect x="${LABEL_W}" y="${y + 3}" width="${w.toFixed(1)}" height="${ROW_H - 6}" fill="${goal.met ? '#1b7f5c' : '#c0392b'}"/>`,
    );
    out.push(text(LABEL_W + w + 6, y + 14, detail, 'class="small"'));
  });
  const bottom = y0 + goals.length * ROW_H;
  for (const tick of [0.1, 1, 10, 100]) {
    out.push(vline(x(tick), y0 - 6, bottom, tick === 1 ? 'goal' : `${tick}×`, tick !== 1));
  }
  return { svg: out.join('\n'), height: bottom - top + 16 };
}

export function renderSvg(env: Environment, results: Results, goals: Goal[]): string {
  const header = `edge-mcp bench · ${env.date.slice(0, 16).replace('T', ' ')} UTC · ${env.machine.cpuModel} × ${env.machine.cpuCount} · Node ${env.versions.node} · Deno ${env.versions.deno} · Bun ${env.versions.bun}`;
  const first = throughputPanel(results, 30);
  const second = goalsPanel(goals, 30 + first.height + 10);
  const height = 30 + first.height + 10 + second.height + 10;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<title>${esc(header)}</title>`,
    '<style>.title{font-size:14px;font-weight:600}.small{font-size:11px;fill:#333}</style>',
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    text(10, 18, header, 'class="small"'),
    first.svg,
    second.svg,
    '</svg>',
    '',
  ].join('\n');
}
