/**
 * The root README's Status gives the performance verdicts of bench/results/latest.json and no
 * figure of its own: the block between `<!-- status:start -->` and `<!-- status:end -->` is what
 * bench/src/report/status.ts renders from that file (as `pnpm bench` and
 * `pnpm --filter @edge-mcp/bench render` write it), every goal with the verdict the run recorded.
 */
import { describe, expect, test } from 'vitest';
import { renderStatus, type StatusReport, statusOf } from '../../bench/src/report/status.ts';
import { read, tableRows } from './markdown.ts';

const latest = JSON.parse(read('bench/results/latest.json')) as StatusReport;
const readme = read('README.md');
const block = statusOf(readme) ?? '';

/** The README's Status section, from its heading to the next one. */
function statusSection(markdown: string): string {
  const start = markdown.indexOf('\n## Status\n');
  if (start < 0) throw new Error('no "## Status" section');
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

describe("the README's Status", () => {
  test('holds the block rendered from bench/results/latest.json', () => {
    expect(block, 'write it again with `pnpm --filter @edge-mcp/bench render` (no measuring)').toBe(
      renderStatus(latest),
    );
  });

  test('the block sits in the Status section', () => {
    expect(block).not.toBe('');
    expect(statusSection(readme)).toContain(block);
  });

  test('names every goal of the run once: the ones not met in the table, with their verdict, the met ones after it', () => {
    const rows = tableRows(block);
    const open = latest.goals.filter((g) => g.met !== true);
    expect(rows.map((row) => row[0]).sort()).toEqual(open.map((g) => g.label).sort());
    for (const goal of open) {
      const row = rows.find((r) => r[0] === goal.label) as string[];
      const expected =
        goal.met === null ? 'not measured' : goal.medianMet ? 'NO (median yes)' : 'NO';
      expect(row[4], goal.label).toBe(expected);
    }
    const metLine = block.split('\n').find((line) => line.startsWith('Met in every round: ')) ?? '';
    for (const goal of latest.goals.filter((g) => g.met === true))
      expect(metLine, goal.label).toContain(goal.label);
  });

  test('its tally counts the goals met and not met', () => {
    const met = latest.goals.filter((g) => g.met === true).length;
    const missed = latest.goals.filter((g) => g.met === false).length;
    expect(block).toContain(
      `**${met} of ${latest.goals.length} goal${latest.goals.length === 1 ? '' : 's'} met**`,
    );
    if (missed > 0) expect(block).toContain(`**${missed} not met**`);
    else expect(block).not.toContain('not met**');
  });

  test('no figure outside the block: the prose cannot claim what the run did not measure', () => {
    const prose = statusSection(readme).replace(block, '');
    expect(prose).not.toMatch(/\d(?:\.\d+)?\s?×/);
    expect(prose).not.toMatch(/\d\s?(?:ms|req\/s|KiB|MiB)\b/);
  });
});

test("the bench README's hand-written reading is of the run latest.json holds", () => {
  const bench = read('bench/README.md');
  const start = bench.indexOf('\n## Reading the last full run\n');
  expect(start, 'bench/README.md has the section the Status links to').toBeGreaterThan(0);
  const reading = bench.slice(start, bench.indexOf('\n## ', start + 1)).replace(/\s+/g, ' ');
  expect(reading, 'a new full run needs a new reading').toContain(
    `the full run of ${latest.date.slice(0, 10)}`,
  );
});
