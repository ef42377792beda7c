import { readFileSync } from 'node:fs';

/**
 * The files the root README shows as runnable: every fenced block whose first line is
 * `// file: <name>`, by name. The consumer test writes them to an empty project as they are, so
 * the README cannot drift from what works.
 */
export function readmeFiles(readmePath: string): Map<string, string> {
  const text = readFileSync(readmePath, 'utf8');
  const files = new Map<string, string>();
  for (const match of text.matchAll(/```[a-z]*\n(\/\/ file: ([^\n]+)\n[\s\S]*?)```/g)) {
    const name = (match[2] as string).trim();
    if (files.has(name)) throw new Error(`README.md shows ${name} twice`);
    files.set(name, match[1] as string);
  }
  return files;
}
