/**
 * `pnpm --filter @edge-mcp/bench render [file]`: redraws the chart, the README's Results section
 * and the tables from a results JSON (default results/latest.json) without measuring again. The
 * verdicts are judged again with the current goals; a file from before the bench took rounds
 * reads as one round.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESULTS_DIR } from './lib/paths.ts';
import { judge } from './report/goals.ts';
import { upgradeReport } from './report/upgrade.ts';
import { writeOutputs } from './report/write.ts';

const file = process.argv[2] ?? join(RESULTS_DIR, 'latest.json');
const report = upgradeReport(JSON.parse(readFileSync(file, 'utf8')));
report.goals = judge(report.results);
// Early runs stored Deno's whole `--version` line.
report.versions.deno = report.versions.deno.replace(/^deno /, '').split(' (')[0] ?? '';
console.log(`\n${writeOutputs(report, file, (line) => console.error(line))}\n`);
