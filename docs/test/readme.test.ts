/**
 * The root README is a front page: under 300 lines, with a table of contents near the top that
 * links every section, and every link to a section of its own lands on one.
 */
import { expect, test } from 'vitest';
import { headings, read, slug } from './markdown.ts';

const readme = read('README.md');
const sections = headings(readme);

test('the README is under 300 lines', () => {
  const lines = readme.endsWith('\n') ? readme.split('\n').length - 1 : readme.split('\n').length;
  expect(lines).toBeLessThan(300);
});

test('the table of contents, near the top, links every section in order', () => {
  const contents = readme.split('\n').findIndex((line) => line.startsWith('**Contents**'));
  expect(contents).toBeGreaterThan(0);
  expect(contents).toBeLessThan(20);
  const text = readme.split('\n').slice(contents).join('\n').split('\n\n')[0] as string;
  const linked = [...text.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1]);
  expect(linked).toEqual(sections.map(slug));
});

test('every link to a section of the README lands on a heading', () => {
  const anchors = new Set([...headings(readme, 2), ...headings(readme, 3)].map(slug));
  const links = [...readme.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1]);
  expect(links.filter((link) => !anchors.has(link as string))).toEqual([]);
});
