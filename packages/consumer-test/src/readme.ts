import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOCUMENTS, WORKSPACE } from './paths.ts';

/** A runnable file a document shows: a fenced block whose first line is `// file: <name>`. */
export interface DocumentFile {
  name: string;
  content: string;
  /** The document that shows it, relative to the workspace root. */
  document: string;
}

/** The `// file:` blocks of one Markdown text, in order. */
export function fileBlocks(markdown: string): Array<{ name: string; content: string }> {
  return [...markdown.matchAll(/```[a-z]*\n(\/\/ file: ([^\n]+)\n[\s\S]*?)```/g)].map((match) => ({
    name: (match[2] as string).trim(),
    content: match[1] as string,
  }));
}

/**
 * The files every document of DOCUMENTS shows as runnable, by name. The consumer test writes them
 * to an empty project as they are, so no document can drift from what works. A name shown twice,
 * in one document or in two, throws: the files share one directory.
 */
export function documentFiles(workspace = WORKSPACE): Map<string, DocumentFile> {
  const files = new Map<string, DocumentFile>();
  for (const document of DOCUMENTS) {
    for (const { name, content } of fileBlocks(readFileSync(join(workspace, document), 'utf8'))) {
      const seen = files.get(name);
      if (seen) throw new Error(`${name} is shown twice: in ${seen.document} and in ${document}`);
      files.set(name, { name, content, document });
    }
  }
  return files;
}

/**
 * What the documents' files import besides the published packages and zod: the optional peers
 * (`jose` for `@edge-mcp/core/jwt`, `@opentelemetry/api` for `/otel`, `hono` for the adapters'
 * `/hono`) and valibot, at the versions the workspace tests them with.
 */
export function documentDependencies(workspace = WORKSPACE): Record<string, string> {
  const devDependencies = (dir: string): Record<string, string> =>
    JSON.parse(readFileSync(join(workspace, 'packages', dir, 'package.json'), 'utf8'))
      .devDependencies;
  const core = devDependencies('core');
  const adapters = devDependencies('adapters');
  const wanted: Array<[string, Record<string, string>]> = [
    ['jose', core],
    ['@opentelemetry/api', core],
    ['valibot', core],
    ['@valibot/to-json-schema', core],
    ['hono', adapters],
  ];
  return Object.fromEntries(
    wanted.map(([name, from]) => {
      const version = from[name];
      if (!version) throw new Error(`no devDependency ${name} to take the version from`);
      return [name, version];
    }),
  );
}
