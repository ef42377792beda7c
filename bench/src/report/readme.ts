/** Writes a run's tables into the Results section of bench/README.md, between its markers. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR } from '../lib/paths.ts';

const START = '<!-- results:start -->';
const END = '<!-- results:end -->';

/** Returns false when the README has no markers (then nothing is written). */
export function fillReadme(markdown: string): boolean {
  const file = join(BENCH_DIR, 'README.md');
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) return false;
  const note =
    '_Filled in by `pnpm bench` from `results/latest.json`; chart: [`results/latest.svg`](results/latest.svg)._';
  const body = `${START}\n\n${note}\n\n${markdown}\n\n![ratios](results/latest.svg)\n\n`;
  writeFileSync(file, text.slice(0, start) + body + text.slice(end));
  return true;
}
