/**
 * `pnpm --filter @edge-mcp/bench render [file]`: redraws the chart, the README's Results section
 * and the tables from a results JSON (default results/latest.json) without measuring again. The
 * verdicts are judged again with the current goals. Files of older formats are not read: measure
 * again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESULTS_DIR } from './lib/paths.ts';
import { judge } from './report/goals.ts';
import type { Report } from './report/report.ts';
import { writeOutputs } from './report/write.ts';

const file = process.argv[2] ?? join(RESULTS_DIR, 'latest.json');
const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
report.goals = judge(report.results);
console.log(`\n${writeOutputs(report, file, (line) => console.error(line))}\n`);
