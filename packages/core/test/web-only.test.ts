import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

test('the core imports nothing from node: (it runs on Web APIs only)', () => {
  const sources = files(SRC);
  expect(sources.length).toBeGreaterThan(10);
  const offenders = sources.filter((file) =>
    /from\s+['"]node:|import\(\s*['"]node:|require\(/.test(readFileSync(file, 'utf8')),
  );
  expect(offenders).toEqual([]);
});
