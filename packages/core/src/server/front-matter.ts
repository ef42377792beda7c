/**
 * The YAML front matter of a `SKILL.md`, read as a JSON object. A skill entry carries it verbatim
 * and a host compares it, parsed by its own YAML reader, field by field with the file, so what
 * this reads must mean what YAML 1.2 (core schema) says it means. It reads the block YAML front
 * matter is written in: nested mappings, sequences, plain, quoted and block (`|`, `>`) scalars,
 * comments and one-line flow sequences. Anything else (anchors, tags, flow mappings, more
 * indented lines inside a folded scalar) is refused with its line, never guessed at.
 *
 * @module
 */
import { SkillError } from '../errors.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const FENCE = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
const KEY =
  /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[A-Za-z0-9_][\w.\-/]*(?: [\w.\-/]+)*)[ \t]*:(?:[ \t]+(.*))?$/;

/** The front matter of `text` (a `SKILL.md`), or a `SkillError` naming what is wrong. */
export function frontMatterOf(text: string, what: string): JsonObject {
  const match = FENCE.exec(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (!match) throw fail(what, 'does not begin with --- delimited YAML front matter');
  const lines = (match[1] as string).split(/\r?\n/);
  const reader = new Reader(lines, what);
  const first = reader.next(0);
  if (first === undefined) throw fail(what, 'has empty front matter');
  const value = reader.block(indentOf(lines[first] as string));
  const left = reader.next(reader.at);
  if (left !== undefined) throw reader.error(left, 'does not continue the mapping above it');
  if (!isMapping(value)) throw fail(what, 'front matter is not a mapping');
  return value as JsonObject;
}

function fail(what: string, message: string): SkillError {
  return new SkillError('frontmatter', `${what} ${message}`);
}

function isMapping(value: Json): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

function blank(line: string): boolean {
  const trimmed = line.trim();
  return trimmed === '' || trimmed.startsWith('#');
}

class Reader {
  at = 0;
  readonly #lines: readonly string[];
  readonly #what: string;

  constructor(lines: readonly string[], what: string) {
    this.#lines = lines;
    this.#what = what;
  }

  error(line: number, message: string): SkillError {
    return fail(this.#what, `front matter line ${line + 1} ${message}`);
  }

  /** The next line from `from` that is neither blank nor a comment. */
  next(from: number): number | undefined {
    for (let i = from; i < this.#lines.length; i++) {
      const line = this.#lines[i] as string;
      if (/^ *\t/.test(line) && !blank(line)) throw this.error(i, 'is indented with a tab');
      if (!blank(line)) return i;
    }
    return undefined;
  }

  /** The mapping or sequence whose lines are indented by exactly `indent`. */
  block(indent: number): Json {
    const first = this.next(this.at) as number;
    const sequence = /^-(?: |$)/.test((this.#lines[first] as string).slice(indent));
    const out: Json[] | { [key: string]: Json } = sequence ? [] : {};
    for (let i = this.next(this.at); i !== undefined; i = this.next(this.at)) {
      const line = this.#lines[i] as string;
      const depth = indentOf(line);
      if (depth < indent) break;
      if (depth > indent) throw this.error(i, 'is indented more than its block');
      const content = line.slice(indent);
      this.at = i + 1;
      if (Array.isArray(out)) {
        // A sequence at its key's own indentation ends where the mapping goes on.
        if (!/^-(?: |$)/.test(content)) {
          this.at = i;
          break;
        }
        const item = content.slice(1).trim();
        if (KEY.test(item)) throw this.error(i, 'holds a mapping in a sequence (not supported)');
        out.push(this.value(item, i, indent, true));
      } else {
        const match = KEY.exec(content);
        if (!match) throw this.error(i, 'is not a "key: value" line');
        const key = unquote(match[1] as string, () => this.error(i, 'has a bad key'));
        if (Object.hasOwn(out, key)) throw this.error(i, `repeats the key ${key}`);
        out[key] = this.value(match[2] ?? '', i, indent, false);
      }
    }
    return out;
  }

  /** The value written after `key:` or `-` on line `at` (whose block is at `indent`). */
  value(text: string, at: number, indent: number, item: boolean): Json {
    const rest = text.startsWith('#') ? '' : text;
    if (rest === '') {
      const next = this.next(this.at);
      if (next === undefined) return null;
      const depth = indentOf(this.#lines[next] as string);
      const nested = /^-(?: |$)/.test((this.#lines[next] as string).trim());
      // A mapping's value may be a sequence at the key's own indentation.
      if (depth > indent || (!item && depth === indent && nested)) return this.block(depth);
      return null;
    }
    const head = rest[0] as string;
    if (head === '|' || head === '>') return this.blockScalar(rest, at, indent);
    if (head === '"' || head === "'") {
      const end = quotedEnd(rest);
      if (end < 0) throw this.error(at, 'has a quoted string that does not end on its line');
      if (!/^\s*(?:#.*)?$/.test(rest.slice(end))) throw this.error(at, 'has text after a quote');
      return unquote(rest.slice(0, end), () => this.error(at, 'has a bad escape'));
    }
    if (head === '[') return this.flow(rest, at);
    if ('{&*!%@`'.includes(head))
      throw this.error(at, `starts a value with ${head} (not supported)`);
    return resolve(this.plain(rest, at, indent), () => this.error(at, 'is not a JSON value'));
  }

  /** A plain scalar, with the more indented lines that continue it. */
  plain(first: string, at: number, indent: number): string {
    let text = stripComment(first);
    if (/:(?: |$)/.test(text)) throw this.error(at, 'has ": " inside a plain value (quote it)');
    let breaks = 0;
    for (let i = this.at; i < this.#lines.length; i++) {
      const line = this.#lines[i] as string;
      if (line.trim() === '') {
        breaks++;
        continue;
      }
      if (indentOf(line) <= indent || line.trim().startsWith('#')) break;
      const more = stripComment(line.trim());
      if (/:(?: |$)/.test(more)) throw this.error(i, 'has ": " inside a plain value');
      text += breaks > 0 ? '\n'.repeat(breaks) + more : ` ${more}`;
      breaks = 0;
      this.at = i + 1;
    }
    return text;
  }

  /** `|` (literal) or `>` (folded), with `-` (strip) or `+` (keep) chomping. */
  blockScalar(header: string, at: number, indent: number): string {
    const match = /^([|>])([-+]?)[ \t]*(?:#.*)?$/.exec(header);
    if (!match) throw this.error(at, 'has a block scalar header this server does not read');
    const lines: string[] = [];
    let inner = -1;
    for (let i = this.at; i < this.#lines.length; i++) {
      const line = this.#lines[i] as string;
      if (line.trim() === '') {
        lines.push('');
      } else if (indentOf(line) <= indent) {
        break;
      } else {
        if (inner < 0) inner = indentOf(line);
        if (indentOf(line) < inner) throw this.error(i, 'is indented less than its block scalar');
        const content = line.slice(inner);
        if (match[1] === '>' && content.startsWith(' '))
          throw this.error(i, 'is indented more inside a folded scalar (not supported)');
        lines.push(content);
      }
      this.at = i + 1;
    }
    let trailing = 0;
    while (lines.length > 0 && lines[lines.length - 1] === '') {
      lines.pop();
      trailing++;
    }
    const body = match[1] === '|' ? lines.join('\n') : fold(lines);
    if (body === '') return match[2] === '+' ? '\n'.repeat(trailing) : '';
    if (match[2] === '-') return body;
    return match[2] === '+' ? `${body}\n${'\n'.repeat(trailing)}` : `${body}\n`;
  }

  /** A one-line flow sequence of scalars: `[a, "b", 3]`. */
  flow(text: string, at: number): Json[] {
    const end = text.lastIndexOf(']');
    if (end < 0 || !/^\s*(?:#.*)?$/.test(text.slice(end + 1)))
      throw this.error(at, 'has a flow sequence that does not end on its line');
    const inner = text.slice(1, end).trim();
    if (inner === '') return [];
    const items: Json[] = [];
    const part = /\s*("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^,[\]{}"'#]*[^,[\]{}"'#\s])\s*(?:,|$)/y;
    while (part.lastIndex < inner.length) {
      const found = part.exec(inner);
      if (!found) throw this.error(at, 'has a flow sequence this server does not read');
      const item = found[1] as string;
      const bad = () => this.error(at, 'has a bad item in a flow sequence');
      items.push(/^["']/.test(item) ? unquote(item, bad) : resolve(item, bad));
    }
    return items;
  }
}

/** Joins the lines of a folded scalar: one line break is a space, n blank lines n breaks. */
function fold(lines: readonly string[]): string {
  let out = '';
  let blanks = 0;
  let started = false;
  for (const line of lines) {
    if (line === '') {
      if (started) blanks++;
      else out += '\n';
      continue;
    }
    if (started) out += blanks > 0 ? '\n'.repeat(blanks) : ' ';
    out += line;
    started = true;
    blanks = 0;
  }
  return out;
}

function stripComment(text: string): string {
  const hash = text.search(/\s#/);
  return (hash < 0 ? text : text.slice(0, hash)).trimEnd();
}

/** Where the quoted string at the start of `text` ends (after its closing quote), or -1. */
function quotedEnd(text: string): number {
  const quote = text[0];
  for (let i = 1; i < text.length; i++) {
    if (quote === '"' && text[i] === '\\') i++;
    else if (text[i] === quote) {
      if (quote === "'" && text[i + 1] === "'") i++;
      else return i + 1;
    }
  }
  return -1;
}

const ESCAPES: Readonly<Record<string, string>> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\x85',
  _: '\xa0',
  L: '\u2028',
  P: '\u2029',
};

/** A key or value as written: quoted ones unquoted (with their escapes), plain ones as they are. */
function unquote(text: string, bad: () => SkillError): string {
  if (text.startsWith("'")) return text.slice(1, -1).replaceAll("''", "'");
  if (!text.startsWith('"')) return text;
  return text
    .slice(1, -1)
    .replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (_, e) => {
      if (e.length > 1) return String.fromCodePoint(Number.parseInt(e.slice(1), 16));
      const char = ESCAPES[e as string];
      if (char === undefined) throw bad();
      return char;
    });
}

/** A plain scalar as the YAML 1.2 core schema reads it: null, a boolean, a number or a string. */
function resolve(text: string, bad: () => SkillError): Json {
  if (/^(?:~|null|Null|NULL|)$/.test(text)) return null;
  if (/^(?:true|True|TRUE)$/.test(text)) return true;
  if (/^(?:false|False|FALSE)$/.test(text)) return false;
  if (/^0o[0-7]+$/.test(text)) return Number.parseInt(text.slice(2), 8);
  if (/^0x[0-9a-fA-F]+$/.test(text)) return Number.parseInt(text.slice(2), 16);
  if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/.test(text)) return Number(text);
  // Infinity and NaN have no JSON form.
  if (/^[-+]?\.(?:inf|Inf|INF)$|^\.(?:nan|NaN|NAN)$/.test(text)) throw bad();
  return text;
}
