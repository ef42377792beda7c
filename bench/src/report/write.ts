/** Writes a run's JSON, chart and (for full runs) the README's Results section; returns the tables. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { BENCH_DIR, RESULTS_DIR } from '../lib/paths.ts';
import { toJson } from './json.ts';
import { fillReadme } from './readme.ts';
import type { Report } from './report.ts';
import { renderStatus, replaceStatus } from './status.ts';
import { renderSvg } from './svg.ts';
import { renderTables } from './table.ts';

export type { Report } from './report.ts';

export function writeOutputs(report: Report, out: string, log: (line: string) => void): string {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, toJson(report));
  const svgFile = join(dirname(out), out.endsWith('latest.json') ? 'latest.svg' : 'partial.svg');
  writeFileSync(svgFile, renderSvg(report));
  const tables = renderTables(report);
  // Only a full run written to results/latest.json speaks for the README.
  const latest = resolve(out) === resolve(RESULTS_DIR, 'latest.json');
  if (latest && !report.config.partial && fillReadme(tables)) {
    log('README.md Results section updated');
  }
  if (latest && !report.config.partial && fillRootStatus(report)) {
    log('the repository README.md Status updated');
  }
  log(`wrote ${out} and ${svgFile}`);
  return tables;
}

/** Writes the run's verdicts into the repository README's Status block (status.ts). */
function fillRootStatus(report: Report): boolean {
  const file = join(BENCH_DIR, '..', 'README.md');
  const text = readFileSync(file, 'utf8');
  const filled = replaceStatus(text, renderStatus(report));
  if (filled === undefined) return false;
  if (filled !== text) writeFileSync(file, filled);
  return true;
}
