/** Writes a run's JSON, chart and (for full runs) the README's Results section; returns the tables. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Environment } from './environment.ts';
import type { Goal, Results } from './goals.ts';
import { toJson } from './json.ts';
import { fillReadme } from './readme.ts';
import { renderSvg } from './svg.ts';
import { renderTables } from './table.ts';

export interface Report extends Environment {
  config: Record<string, unknown> & { partial: boolean };
  results: Results;
  goals: Goal[];
}

export function writeOutputs(report: Report, out: string, log: (line: string) => void): string {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, toJson(report));
  const svgFile = join(dirname(out), out.endsWith('latest.json') ? 'latest.svg' : 'partial.svg');
  writeFileSync(svgFile, renderSvg(report, report.results, report.goals));
  const tables = renderTables(report, report.results, report.goals);
  if (!report.config.partial && fillReadme(tables)) log('README.md Results section updated');
  log(`wrote ${out} and ${svgFile}`);
  return tables;
}
