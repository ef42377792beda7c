/**
 * What the docs tests read of Markdown: a section between two HTML-comment markers, the rows of
 * the tables in it, and the fenced code blocks that follow an `<!-- example: … -->` marker.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');

export function read(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** The text between `<!-- ${kind}: ${name} -->` and the next `<!-- /${kind} -->`. */
export function section(markdown: string, kind: string, name: string): string {
  const open = `<!-- ${kind}: ${name} -->`;
  const start = markdown.indexOf(open);
  if (start < 0) throw new Error(`no "${open}" marker`);
  const end = markdown.indexOf(`<!-- /${kind} -->`, start);
  if (end < 0) throw new Error(`"${open}" is not closed by <!-- /${kind} -->`);
  return markdown.slice(start + open.length, end);
}

/** Every `<!-- ${kind}: name -->` marker's name, in order. */
export function markers(markdown: string, kind: string): string[] {
  return [...markdown.matchAll(new RegExp(`<!-- ${kind}: (\\S+) -->`, 'g'))].map(
    (match) => match[1] as string,
  );
}

/** The body rows of the Markdown tables in `text`, as trimmed cells (header and rule skipped). */
export function tableRows(text: string): string[][] {
  const rows: string[][] = [];
  let header = true;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('|')) {
      header = true; // the next table starts with its header again
      continue;
    }
    if (header) {
      header = /^\|[\s|:-]+\|$/.test(trimmed) ? false : header;
      continue;
    }
    rows.push(splitRow(trimmed));
  }
  return rows;
}

/** The header cells of the first table in `text`. */
export function headerOf(text: string): string[] {
  const line = text.split('\n').find((l) => l.trim().startsWith('|'));
  if (line === undefined) throw new Error('no table');
  return splitRow(line.trim());
}

/** A row's cells; `\|` inside a cell is a literal bar. */
function splitRow(row: string): string[] {
  const cells: string[] = [];
  let cell = '';
  for (let i = 1; i < row.length - 1; i++) {
    const c = row[i];
    if (c === '\\' && row[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (c === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  cells.push(cell.trim());
  return cells;
}

/** The code spans of a cell, without their backticks. */
export function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
}

/** The fenced code block right after each `<!-- example: path -->` marker, by path. */
export function examples(markdown: string): Map<string, string> {
  const found = new Map<string, string>();
  const marker = /<!-- example: (\S+) -->\s*\n```[a-z]*\n([\s\S]*?)\n```/g;
  for (const match of markdown.matchAll(marker)) found.set(match[1] as string, `${match[2]}\n`);
  return found;
}

/** A fenced code block: its info string's language, its text, and the marker comment before it. */
export interface FencedBlock {
  lang: string;
  /** The text between the fences, with a final newline. */
  content: string;
  /** The HTML comment on the last non-blank line before the fence, if there is one. */
  marker: string | undefined;
  /** 1-based line of the opening fence. */
  line: number;
}

/** Every fenced (```) block of a Markdown text, in order. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const lines = markdown.split('\n');
  const blocks: FencedBlock[] = [];
  let previous: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i] as string);
    if (!open) {
      if ((lines[i] as string).trim() !== '') previous = (lines[i] as string).trim();
      continue;
    }
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] as string); i++)
      body.push(lines[i] as string);
    if (i >= lines.length) throw new Error(`the block opened on line ${start + 1} is not closed`);
    const marker = previous?.startsWith('<!--') ? previous : undefined;
    blocks.push({ lang: open[1] ?? '', content: `${body.join('\n')}\n`, marker, line: start + 1 });
    previous = undefined;
  }
  return blocks;
}

/** The `##` headings of a Markdown text (not those inside code blocks). */
export function headings(markdown: string, level = 2): string[] {
  const prefix = `${'#'.repeat(level)} `;
  let inside = false;
  const found: string[] = [];
  for (const line of markdown.split('\n')) {
    if (/^```/.test(line)) inside = !inside;
    else if (!inside && line.startsWith(prefix)) found.push(line.slice(prefix.length).trim());
  }
  return found;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}
