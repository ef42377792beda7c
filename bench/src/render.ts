/**
 * `pnpm --filter @edge-mcp/bench render [file]`: writes the README's Results section and the
 * tables again from a results JSON (default results/latest.json) without measuring again. The
 * verdicts are judged again with the current goals. Only the current format is read: a file of
 * an older one is measured again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESULTS_DIR } from './lib/paths.ts';
import { judge } from './report/sections.ts';
import type { Report } from './report/types.ts';
import { writeOutputs } from './report/write.ts';

const file = process.argv[2] ?? join(RESULTS_DIR, 'latest.json');
const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
report.goals = judge(report.results);
console.log(`\n${writeOutputs(report, file, (line) => console.error(line))}\n`);
