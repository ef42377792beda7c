/**
 * The names an entry file exports, read from its source: `export { … } from`, `export type { … }`,
 * declarations (`export function`, `class`, `const`, `interface`, `type`, `enum`) and
 * `export * from` (followed). Type-only names are marked, so the runtime module can be compared
 * with the value names.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export interface ExportedName {
  name: string;
  typeOnly: boolean;
}

function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

export function exportsOf(file: string): ExportedName[] {
  const source = stripComments(readFileSync(file, 'utf8'));
  const names = new Map<string, boolean>();
  const add = (name: string, typeOnly: boolean) => names.set(name, typeOnly);

  for (const match of source.matchAll(/\bexport\s+(type\s+)?\{([^}]*)\}/g)) {
    const statementType = match[1] !== undefined;
    for (const raw of (match[2] as string).split(',')) {
      const item = raw.trim();
      if (item === '') continue;
      const itemType = item.startsWith('type ');
      const spec = itemType ? item.slice(5).trim() : item;
      const alias = spec.split(/\s+as\s+/);
      add((alias[1] ?? alias[0] ?? '').trim(), statementType || itemType);
    }
  }
  const declaration =
    /\bexport\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(function\*?|class|const|let|var|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g;
  for (const match of source.matchAll(declaration))
    add(match[2] as string, match[1] === 'interface' || match[1] === 'type');
  for (const match of source.matchAll(/\bexport\s+\*\s+from\s+['"]([^'"]+)['"]/g))
    for (const inner of exportsOf(resolve(dirname(file), match[1] as string)))
      if (inner.name !== 'default') add(inner.name, inner.typeOnly);

  return [...names].map(([name, typeOnly]) => ({ name, typeOnly })).sort(byName);
}

function byName(a: ExportedName, b: ExportedName): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
