/**
 * `readSkillFolder` on Node, and on the real Deno and Bun binaries (test/fixtures/skill-folder.ts):
 * a folder on disk becomes the files of a skill, nested paths joined with `/`, dot files left out
 * (or read with `dotFiles`), bytes as they are on disk; the entry the core makes of it carries the
 * digests node:crypto computes of those bytes.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readSkillFolder } from '../src/node/index.ts';
import { bunBinary, denoBinary } from './runtime-child.ts';

const SKILL = '---\nname: folder-skill\ndescription: Read from disk\n---\nSee references/.\n';
const BINARY = Uint8Array.from([0, 1, 2, 0xff, 0xfe]);
let dir: string;

beforeAll(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'skill-folder-')), 'folder-skill');
  mkdirSync(join(dir, 'references', 'deep'), { recursive: true });
  mkdirSync(join(dir, '.git'));
  writeFileSync(join(dir, 'SKILL.md'), SKILL);
  writeFileSync(join(dir, 'references', 'GUIDE.md'), 'Guide\n');
  writeFileSync(join(dir, 'references', 'deep', 'data.bin'), BINARY);
  writeFileSync(join(dir, '.git', 'HEAD'), 'ref: main\n');
  writeFileSync(join(dir, '.DS_Store'), 'x');
});
afterAll(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

function sha256(bytes: Uint8Array | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

const expected = () => ({
  uri: 'skill://folder-skill/SKILL.md',
  frontmatter: { name: 'folder-skill', description: 'Read from disk' },
  resources: [
    { uri: 'skill://folder-skill/SKILL.md', digest: sha256(SKILL), size: SKILL.length },
    {
      uri: 'skill://folder-skill/references/deep/data.bin',
      digest: sha256(BINARY),
      size: BINARY.length,
    },
    { uri: 'skill://folder-skill/references/GUIDE.md', digest: sha256('Guide\n'), size: 6 },
  ],
});

test('reads every regular file below the folder by its / path, dot files left out', async () => {
  const files = await readSkillFolder(dir);
  expect(Object.keys(files)).toEqual(
    ['SKILL.md', 'references/GUIDE.md', 'references/deep/data.bin'].sort(),
  );
  expect(files['references/deep/data.bin']).toEqual(BINARY);
  expect(new TextDecoder().decode(files['SKILL.md'])).toBe(SKILL);
  const all = await readSkillFolder(`${dir}/`, { dotFiles: true });
  expect(Object.keys(all)).toEqual(expect.arrayContaining(['.DS_Store', '.git/HEAD']));
});

test('a missing folder rejects', async () => {
  await expect(readSkillFolder(join(dir, 'nowhere'))).rejects.toThrow(/ENOENT|No such file/);
});

const script = fileURLToPath(new URL('./fixtures/skill-folder.ts', import.meta.url));
const RUNTIMES = [
  { name: 'Node', command: () => process.execPath, args: ['--import', 'tsx'] },
  { name: 'Bun', command: bunBinary, args: ['run'] },
  { name: 'Deno', command: denoBinary, args: ['run', '--allow-read', '--allow-env'] },
];

describe.each(RUNTIMES)('on $name', ({ command, args }) => {
  test('the folder served as a skill lists the digests of its bytes', () => {
    const ran = spawnSync(command(), [...args, script, dir], { encoding: 'utf8', timeout: 60_000 });
    expect(ran.status, ran.stderr).toBe(0);
    const entry = JSON.parse(ran.stdout.trim().split('\n').at(-1) as string);
    expect({
      ...entry,
      resources: [...entry.resources].sort((a, b) => (a.uri < b.uri ? -1 : 1)),
    }).toEqual({
      ...expected(),
      resources: [...expected().resources].sort((a, b) => (a.uri < b.uri ? -1 : 1)),
    });
  }, 90_000);
});
