/**
 * Writes a run's JSON and, for a full run written to results/latest.json, the Results section
 * of bench/README.md and the verdicts in the repository README's Status; returns the tables.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { BENCH_DIR, RESULTS_DIR } from '../lib/paths.ts';
import { toJson } from './json.ts';
import { renderTables } from './sections.ts';
import { renderStatus, replaceStatus } from './status.ts';
import type { Report } from './types.ts';

const RESULTS_START = '<!-- results:start -->';
const RESULTS_END = '<!-- results:end -->';

export function writeOutputs(report: Report, out: string, log: (line: string) => void): string {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, toJson(report));
  const tables = renderTables(report);
  // Only a full run written to results/latest.json speaks for the READMEs.
  if (resolve(out) === resolve(RESULTS_DIR, 'latest.json') && !report.config.partial) {
    if (fillResults(tables)) log('README.md Results section updated');
    if (fillRootStatus(report)) log('the repository README.md Status updated');
  }
  log(`wrote ${out}`);
  return tables;
}

/** Writes the tables between bench/README.md's markers; false when it has none. */
function fillResults(markdown: string): boolean {
  const file = join(BENCH_DIR, 'README.md');
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(RESULTS_START);
  const end = text.indexOf(RESULTS_END);
  if (start < 0 || end < start) return false;
  const note = '_Filled in by `pnpm bench` from `results/latest.json`._';
  const body = `${RESULTS_START}\n\n${note}\n\n${markdown}\n\n`;
  writeFileSync(file, text.slice(0, start) + body + text.slice(end));
  return true;
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
