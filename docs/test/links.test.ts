/**
 * Sections moved between the READMEs and docs; links must follow them. Every relative link of the
 * READMEs and docs points at a file that exists and, with a `#fragment` into Markdown, at a
 * heading that exists there.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { expect, test } from 'vitest';
import { headings, ROOT, read, slug } from './markdown.ts';

const documents = [
  'README.md',
  'bench/README.md',
  ...['packages', 'apps'].flatMap((parent) =>
    readdirSync(join(ROOT, parent))
      .map((name) => `${parent}/${name}/README.md`)
      .filter((path) => existsSync(join(ROOT, path))),
  ),
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The anchors of a Markdown file: its headings of every level, as GitHub makes them. */
function anchors(path: string): Set<string> {
  const text = read(path);
  return new Set([1, 2, 3, 4, 5, 6].flatMap((level) => headings(text, level)).map(slug));
}

/** Links of a Markdown text outside code blocks and code spans: `[text](target)`. */
function links(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string);
}

test.each(documents)('every relative link of %s resolves', (document) => {
  const broken: string[] = [];
  for (const link of links(read(document))) {
    if (/^[a-z]+:/.test(link)) continue; // https:, mailto:
    const [file, fragment] = link.split('#') as [string, string | undefined];
    const target = file === '' ? document : normalize(join(dirname(document), file));
    if (!existsSync(join(ROOT, target))) {
      broken.push(`${link} (no ${target})`);
      continue;
    }
    if (fragment !== undefined && target.endsWith('.md') && !anchors(target).has(fragment))
      broken.push(`${link} (no heading #${fragment} in ${target})`);
  }
  expect(broken).toEqual([]);
});

test('the links are found (a reader that sees none would pass every document)', () => {
  expect(links(read('README.md')).length).toBeGreaterThan(20);
  expect(links(read('docs/authorization.md'))).toContain(
    '../packages/core/README.md#jwt-access-tokens-edge-mcpcorejwt',
  );
});
