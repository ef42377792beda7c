/**
 * What a user does, once for every test: the packages packed as they would be published from a
 * fresh clone (`pnpm pack`: the prepack script builds dist/, publishConfig is applied,
 * `workspace:^` is turned into a version range), then
 * an empty project outside the workspace that installs the tarballs with npm, next to the
 * runnable files of the READMEs and docs (src/readme.ts) and what those import.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { runOk } from './exec.ts';
import { PUBLISHED, WORKSPACE } from './paths.ts';
import { documentDependencies, documentFiles } from './readme.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The consumer project: the tarballs installed, the documents' files written. */
    app: string;
    /** Tarball path per published package directory name. */
    tarballs: Record<string, string>;
  }
}

export default function setup(project: TestProject): () => void {
  const root = mkdtempSync(join(tmpdir(), 'edge-mcp-consumer-'));
  const packs = join(root, 'packs');
  const app = join(root, 'app');
  mkdirSync(packs);
  mkdirSync(app);
  const tarballs: Record<string, string> = {};
  for (const name of PUBLISHED) {
    const dir = join(WORKSPACE, 'packages', name);
    // No build step here: `pnpm pack` must build dist/ itself (prepack), as a publish does.
    rmSync(join(dir, 'dist'), { recursive: true, force: true });
    const before = new Set(readdirSync(packs));
    runOk('pnpm', ['pack', '--pack-destination', packs], dir);
    const made = readdirSync(packs).find((file) => !before.has(file) && file.endsWith('.tgz'));
    if (!made) throw new Error(`pnpm pack made no tarball for ${name}`);
    tarballs[name] = join(packs, made);
  }
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify(
      {
        name: 'edge-mcp-consumer',
        private: true,
        type: 'module',
        dependencies: {
          '@edge-mcp/core': `file:${tarballs.core}`,
          '@edge-mcp/adapters': `file:${tarballs.adapters}`,
          '@edge-mcp/redis': `file:${tarballs.redis}`,
          zod: '4.6.7',
          ...documentDependencies(),
        },
        devDependencies: { '@types/node': '20.19.43' },
      },
      null,
      2,
    ),
  );
  runOk('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], app);
  for (const [name, file] of documentFiles()) writeFileSync(join(app, name), file.content);
  project.provide('app', app);
  project.provide('tarballs', tarballs);
  return () => rmSync(root, { recursive: true, force: true });
}
