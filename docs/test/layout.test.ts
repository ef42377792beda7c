/**
 * The root README's Layout table lists every member of the pnpm workspace, each with its folder
 * and its package name, and nothing else: the members are read from pnpm-workspace.yaml's globs
 * and each folder's package.json, never from a list kept here.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { codeSpans, ROOT, read, section, tableRows } from './markdown.ts';

interface Member {
  path: string;
  name: string;
}

/** The `packages:` globs of pnpm-workspace.yaml (`dir/*` or a folder; anything else throws). */
function workspaceGlobs(yaml: string): string[] {
  const lines = yaml.split('\n');
  const start = lines.findIndex((line) => /^packages:\s*$/.test(line));
  if (start < 0) throw new Error('pnpm-workspace.yaml has no packages: list');
  const globs: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\s*(#.*)?$/.test(line)) continue;
    const item = /^\s+-\s+['"]?([^'"#\s]+)['"]?\s*(#.*)?$/.exec(line);
    if (!item) break;
    globs.push(item[1] as string);
  }
  return globs;
}

/** Every workspace member: the folders the globs match that hold a package.json, with its name. */
function workspaceMembers(root: string, globs: readonly string[]): Member[] {
  const folders = globs.flatMap((glob) => {
    if (/^[\w./-]+\/\*$/.test(glob)) {
      const parent = glob.slice(0, -2);
      return readdirSync(join(root, parent), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => `${parent}/${entry.name}`);
    }
    if (/^[\w./-]+$/.test(glob)) return [glob];
    throw new Error(`a workspace glob this test does not read yet: ${glob}`);
  });
  return folders
    .filter((folder) => existsSync(join(root, folder, 'package.json')))
    .map((path) => ({ path, name: JSON.parse(read(`${path}/package.json`)).name as string }))
    .sort((a, b) => a.path.localeCompare(b.path));
}

/** The rows of a Layout table: the folder and the package name, each the cell's first code span. */
function layoutRows(table: string): Member[] {
  return tableRows(table).map((cells) => ({
    path: codeSpans(cells[0] ?? '')[0] ?? `(no path in "${cells[0]}")`,
    name: codeSpans(cells[1] ?? '')[0] ?? `(no package in "${cells[1]}")`,
  }));
}

/** What a Layout table gets wrong: members it misses, rows that are no member, wrong names. */
function layoutErrors(rows: readonly Member[], members: readonly Member[]): string[] {
  const errors: string[] = [];
  for (const member of members) {
    const row = rows.find((r) => r.path === member.path);
    if (!row) errors.push(`missing: ${member.path} (${member.name})`);
    else if (row.name !== member.name)
      errors.push(`${member.path} is ${member.name}, the table says ${row.name}`);
  }
  for (const row of rows)
    if (!members.some((m) => m.path === row.path)) errors.push(`not a member: ${row.path}`);
  const paths = rows.map((row) => row.path);
  for (const path of new Set(paths.filter((p, i) => paths.indexOf(p) !== i)))
    errors.push(`listed twice: ${path}`);
  return errors;
}

const members = workspaceMembers(ROOT, workspaceGlobs(read('pnpm-workspace.yaml')));
const rows = layoutRows(section(read('README.md'), 'layout', 'workspace'));

describe('the workspace', () => {
  test('is read from pnpm-workspace.yaml: its globs give the known kinds of member', () => {
    expect(members.length).toBeGreaterThan(10);
    for (const path of ['packages/core', 'apps/server', 'bench', 'docs'])
      expect(members.map((m) => m.path)).toContain(path);
  });

  test('every apps/* member can be started with pnpm start, as the table says', () => {
    for (const member of members.filter((m) => m.path.startsWith('apps/')))
      expect(
        JSON.parse(read(`${member.path}/package.json`)).scripts?.start,
        member.path,
      ).toBeTypeOf('string');
  });
});

describe("the README's Layout table", () => {
  test('lists every workspace member with its package name, and nothing else', () => {
    expect(layoutErrors(rows, members)).toEqual([]);
  });

  test('the check fails for a table that misses a member, names one wrongly or lists a stranger', () => {
    const without = rows.filter((row) => row.path !== 'packages/stress');
    expect(layoutErrors(without, members)).toEqual(['missing: packages/stress (@edge-mcp/stress)']);
    const renamed = rows.map((row) =>
      row.path === 'docs' ? { ...row, name: '@edge-mcp/doc' } : row,
    );
    expect(layoutErrors(renamed, members)).toEqual([
      'docs is @edge-mcp/docs, the table says @edge-mcp/doc',
    ]);
    expect(layoutErrors([...rows, { path: 'packages/gone', name: 'x' }], members)).toEqual([
      'not a member: packages/gone',
    ]);
  });
});
