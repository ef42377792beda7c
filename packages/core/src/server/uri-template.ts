/**
 * A compiled URI template (RFC 6570 subset: `{var}`, `{+var}`, `{#var}`, `{.var}`, `{/var}`,
 * `{?a,b}`, `{&a}`, and lists like `{#a,b}`).
 */
export interface UriTemplate {
  readonly source: string;
  readonly variables: readonly string[];
  match(uri: string): Record<string, string> | undefined;
}

/**
 * URIs longer than this (in UTF-16 code units) match no template. `resources/read` runs every
 * registered template against the client's URI, so the work per request is bounded by this times
 * the templates' length.
 */
export const MAX_TEMPLATE_URI_LENGTH = 64 * 1024;

const EXPRESSION = /\{([+#./?&]?)([A-Za-z0-9_,.%]+)\}/g;

/**
 * What a template compiles to: a sequence of steps, each consuming part of the URI.
 * - `literal`: exactly `text` (`slots`: each character's table, see {@link Pattern}).
 * - `value`: one or more characters, captured as variable `name`. Simple, `.` and `/` values
 *   exclude `/`, `?`, `#` and take the longest run that leaves the rest matchable; `+` and `#`
 *   values (`reserved`) take any character but a line terminator and the shortest such run.
 * - `query`: optional; when present, a `?` or `&` and then the longest run of non-line-terminators
 *   that leaves the rest matchable. The variables are read from the query string afterwards.
 */
type Step =
  | { kind: 'literal'; text: string; slots: number[] }
  | { kind: 'value'; name: string; reserved: boolean }
  | { kind: 'query' };

/** The steps, and the characters of the literals, each with a bit table of where it occurs. */
interface Pattern {
  steps: Step[];
  /** Table of each ASCII character that has one, else -1. */
  ascii: Int32Array;
  /** Tables of the other characters that have one. */
  other: Map<number, number>;
  tables: number;
}

/**
 * Compiles `source`. Matching is anchored at both ends and deterministic; the rule for ambiguous
 * URIs is the one the previous RegExp-based matcher had (backtracking priority), so every URI up
 * to {@link MAX_TEMPLATE_URI_LENGTH} matches as it did before, with the same values:
 *
 * - Steps are decided left to right; each takes its most preferred choice for which the rest of
 *   the template can still match the rest of the URI.
 * - Preferred: the longest value for `{var}`, `{.var}`, `{/var}` (so `{a}.{b}` on `1.2.3` is
 *   a=`1.2`, b=`3`), the shortest value for `{+var}` and `{#var}` (`{+a}/{+b}` on `x/y/z` is
 *   a=`x`, b=`y/z`), and taking a `{?…}`/`{&…}` part (as long as possible) over skipping it.
 * - Values are never empty; `{a,b}` (and `{+a,b}`, `{#a,b}`) separate values with `,`; `{#…}`
 *   starts with one `#`; `{.a,b}` and `{/a,b}` put `.` or `/` before every value.
 * - Values are percent-decoded (left as they are when the encoding is malformed); query variables
 *   are read with URLSearchParams from the text after the URI's first `?`, and are absent when
 *   missing.
 *
 * Unlike the RegExp (which backtracked: O(n³) and worse on crafted URIs, one request could hold
 * the event loop for minutes), this never backtracks: a dynamic program over (step, position) on
 * bit sets, i.e. one pass over the URI's characters and then O(m · n / 32) word operations and
 * (steps + distinct literal characters + 7) · n / 8 bytes, for a URI of length n and a template
 * of length m, with n capped by {@link MAX_TEMPLATE_URI_LENGTH}: about a millisecond for a
 * 64 KiB URI against a template of seven expressions.
 */
export function compileTemplate(source: string): UriTemplate {
  const { variables, positional, steps } = parseTemplate(source);
  const pattern = tabulate(steps);
  const query = variables.filter((name) => !positional.includes(name));
  const first = steps[0];
  const final = steps[steps.length - 1];
  const prefix = first?.kind === 'literal' ? first.text : '';
  const suffix = final?.kind === 'literal' && steps.length > 1 ? final.text : '';
  return {
    source,
    variables,
    match(uri) {
      if (uri.length > MAX_TEMPLATE_URI_LENGTH) return undefined;
      // Cheap rejections before the tables: most templates differ from the URI in the scheme.
      if (!uri.startsWith(prefix) || !uri.endsWith(suffix)) return undefined;
      const values = matchSteps(pattern, uri);
      if (!values) return undefined;
      const result: Record<string, string> = {};
      for (const [name, value] of values) result[name] = safeDecode(value);
      if (query.length > 0) {
        const q = uri.indexOf('?');
        const params = new URLSearchParams(q === -1 ? '' : uri.slice(q + 1));
        for (const name of query) {
          const value = params.get(name);
          if (value !== null) result[name] = value;
        }
      }
      return result;
    },
  };
}

/** The template's steps (literals, values, the query) and its variables, path ones apart. */
function parseTemplate(source: string): {
  variables: string[];
  positional: string[];
  steps: Step[];
} {
  const variables: string[] = [];
  /** Variables read from the path, in step order (query ones come from the query). */
  const positional: string[] = [];
  const steps: Step[] = [];
  const literal = (text: string) => {
    if (text === '') return;
    const previous = steps[steps.length - 1];
    if (previous?.kind === 'literal') previous.text += text;
    else steps.push({ kind: 'literal', text, slots: [] });
  };
  let last = 0;
  for (const match of source.matchAll(EXPRESSION)) {
    literal(source.slice(last, match.index));
    const operator = match[1] ?? '';
    const names = (match[2] ?? '').split(',');
    variables.push(...names);
    if (operator === '?' || operator === '&') {
      steps.push({ kind: 'query' });
    } else {
      positional.push(...names);
      const reserved = operator === '+' || operator === '#';
      if (operator === '#') literal('#');
      names.forEach((name, i) => {
        if (operator === '.' || operator === '/') literal(operator);
        else if (i > 0) literal(',');
        steps.push({ kind: 'value', name, reserved });
      });
    }
    last = match.index + match[0].length;
  }
  literal(source.slice(last));
  return { variables, positional, steps };
}

/** Gives each distinct character of the literals a bit table. */
function tabulate(steps: Step[]): Pattern {
  const ascii = new Int32Array(128).fill(-1);
  const other = new Map<number, number>();
  let tables = 0;
  for (const step of steps) {
    if (step.kind !== 'literal') continue;
    for (let i = 0; i < step.text.length; i++) {
      const code = step.text.charCodeAt(i);
      let table = code < 128 ? (ascii[code] as number) : (other.get(code) ?? -1);
      if (table === -1) {
        table = tables++;
        if (code < 128) ascii[code] = table;
        else other.set(code, table);
      }
      step.slots.push(table);
    }
  }
  return { steps, ascii, other, tables };
}

/*
 * The matcher works on bit sets over the URI's positions 0..n, 32 to an Int32Array word, all in
 * one array of planes (`words` words each): the character classes, one table per literal
 * character, then one row per step.
 */
/** Positions where a simple value must end: `/`, `?`, `#`, and n. */
const SIMPLE_END = 0;
/** Positions where a reserved value or a query part must end: line terminators, and n. */
const RESERVED_END = 1;
/** Positions of `?` and `&`. */
const QUERY_START = 2;
/** Positions a simple value may cover (the complement of SIMPLE_END below n). */
const SIMPLE = 3;
/** Positions a reserved value or a query part may cover. */
const RESERVED = 4;
/** Scratch plane for {@link closure}. */
const CLOSURE = 5;
/** The first literal character table. */
const TABLES = 6;

/**
 * Row i holds `possible[i][p]`: steps i.. can match uri[p..] exactly. Rows are filled from the last
 * step back, 32 positions per operation; then one pass forward takes each step's preferred choice
 * among those that keep the rest possible.
 */
function matchSteps(pattern: Pattern, uri: string): [string, string][] | undefined {
  const { steps } = pattern;
  const n = uri.length;
  const words = (n >>> 5) + 1;
  const rows = TABLES + pattern.tables;
  const bits = new Int32Array((rows + steps.length + 1) * words);
  scan(pattern, uri, bits, words);
  bits[(rows + steps.length) * words + (n >>> 5)] = 1 << (n & 31);
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i] as Step;
    const row = (rows + i) * words;
    if (step.kind === 'literal') fillLiteral(bits, words, row, step.slots);
    else if (step.kind === 'value') fillValue(bits, words, row, step.reserved ? RESERVED : SIMPLE);
    else fillQuery(bits, words, row);
  }
  if (bit(bits, rows * words, 0) === 0) return undefined;
  const values: [string, string][] = [];
  let p = 0;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i] as Step;
    const next = (rows + i + 1) * words;
    if (step.kind === 'literal') {
      p += step.text.length;
    } else if (step.kind === 'value') {
      const q = step.reserved
        ? firstSet(bits, next, p + 1, firstSet(bits, RESERVED_END * words, p, n))
        : lastSet(bits, next, p + 1, firstSet(bits, SIMPLE_END * words, p, n));
      values.push([step.name, uri.slice(p, q)]);
      p = q;
    } else if (p < n && bit(bits, QUERY_START * words, p) === 1) {
      const q = lastSet(bits, next, p + 1, firstSet(bits, RESERVED_END * words, p + 1, n));
      if (q !== -1) p = q;
    }
  }
  return values;
}

/** One pass over the URI: the class planes and the literal character tables. */
function scan(pattern: Pattern, uri: string, bits: Int32Array, words: number): void {
  const { ascii, other } = pattern;
  const n = uri.length;
  const simpleEnd = SIMPLE_END * words;
  const reservedEnd = RESERVED_END * words;
  const queryStart = QUERY_START * words;
  const tables = TABLES * words;
  for (let p = 0; p < n; p++) {
    const code = uri.charCodeAt(p);
    const w = p >>> 5;
    const mask = 1 << (p & 31);
    if (code < 128) {
      if (code === 0x2f || code === 0x23 || code === 0x3f) {
        bits[simpleEnd + w] = (bits[simpleEnd + w] as number) | mask;
      }
      if (code === 0x3f || code === 0x26) {
        bits[queryStart + w] = (bits[queryStart + w] as number) | mask;
      }
      if (code === 0x0a || code === 0x0d) {
        bits[reservedEnd + w] = (bits[reservedEnd + w] as number) | mask;
      }
      const table = ascii[code] as number;
      if (table !== -1) {
        const index = tables + table * words + w;
        bits[index] = (bits[index] as number) | mask;
      }
    } else {
      if (code === 0x2028 || code === 0x2029) {
        bits[reservedEnd + w] = (bits[reservedEnd + w] as number) | mask;
      }
      const table = other.get(code);
      if (table !== undefined) {
        const index = tables + table * words + w;
        bits[index] = (bits[index] as number) | mask;
      }
    }
  }
  const end = n >>> 5;
  bits[simpleEnd + end] = (bits[simpleEnd + end] as number) | (1 << (n & 31));
  bits[reservedEnd + end] = (bits[reservedEnd + end] as number) | (1 << (n & 31));
  for (let w = 0; w < words; w++) {
    // Positions past n are in neither class.
    const valid = w === end ? (2 << (n & 31)) - 1 : -1;
    bits[SIMPLE * words + w] = ~(bits[simpleEnd + w] as number) & valid;
    bits[RESERVED * words + w] = ~(bits[reservedEnd + w] as number) & valid;
  }
}

/** A literal matches at p when each of its characters is there and the rest matches after it. */
function fillLiteral(bits: Int32Array, words: number, row: number, slots: number[]): void {
  const next = row + words;
  for (let w = 0; w < words; w++) {
    let found = shifted(bits, words, (TABLES + (slots[0] as number)) * words, w, 0);
    for (let j = 1; j < slots.length && found !== 0; j++) {
      found &= shifted(bits, words, (TABLES + (slots[j] as number)) * words, w, j);
    }
    bits[row + w] = found & shifted(bits, words, next, w, slots.length);
  }
}

/**
 * A value matches at p when p may be in it and the rest matches at some q in p+1..end, end being
 * the first position from p that may not: with Z the closure of the next row through the class,
 * that is class[p] && Z[p+1].
 */
function fillValue(bits: Int32Array, words: number, row: number, plane: number): void {
  const allowed = plane * words;
  closure(bits, words, row + words, allowed);
  for (let w = 0; w < words; w++) {
    bits[row + w] = (bits[allowed + w] as number) & shifted(bits, words, CLOSURE * words, w, 1);
  }
}

/** A query part matches at p when the rest does, or after a `?`/`&` at p, when Z[p+1]. */
function fillQuery(bits: Int32Array, words: number, row: number): void {
  const next = row + words;
  closure(bits, words, next, RESERVED * words);
  for (let w = 0; w < words; w++) {
    bits[row + w] =
      (bits[next + w] as number) |
      ((bits[QUERY_START * words + w] as number) & shifted(bits, words, CLOSURE * words, w, 1));
  }
}

/**
 * Into the CLOSURE plane: Z[x] = from[x] || (allowed[x] && Z[x+1]), i.e. some y >= x is in `from`
 * with x..y-1 all allowed. Word by word from the top, a parallel prefix within each word.
 */
function closure(bits: Int32Array, words: number, from: number, allowed: number): void {
  const out = CLOSURE * words;
  let carry = 0;
  for (let w = words - 1; w >= 0; w--) {
    let pass = bits[allowed + w] as number;
    let reach = (bits[from + w] as number) | (pass & (carry << 31));
    reach |= pass & (reach >>> 1);
    pass &= pass >>> 1;
    reach |= pass & (reach >>> 2);
    pass &= pass >>> 2;
    reach |= pass & (reach >>> 4);
    pass &= pass >>> 4;
    reach |= pass & (reach >>> 8);
    pass &= pass >>> 8;
    reach |= pass & (reach >>> 16);
    bits[out + w] = reach;
    carry = reach & 1;
  }
}

/** Word w of the plane at `base` moved down by `by` positions: bit b is position 32w + b + by. */
function shifted(bits: Int32Array, words: number, base: number, w: number, by: number): number {
  const k = w + (by >>> 5);
  const r = by & 31;
  const low = k < words ? (bits[base + k] as number) : 0;
  if (r === 0) return low;
  const high = k + 1 < words ? (bits[base + k + 1] as number) : 0;
  return (low >>> r) | (high << (32 - r));
}

function bit(bits: Int32Array, base: number, p: number): number {
  return ((bits[base + (p >>> 5)] as number) >>> (p & 31)) & 1;
}

/** The smallest position in lo..hi in the plane at `base`, or -1. */
function firstSet(bits: Int32Array, base: number, lo: number, hi: number): number {
  if (lo > hi) return -1;
  const first = lo >>> 5;
  const last = hi >>> 5;
  for (let w = first; w <= last; w++) {
    let word = bits[base + w] as number;
    if (w === first) word &= -1 << (lo & 31);
    if (w === last) word &= (2 << (hi & 31)) - 1;
    if (word !== 0) return w * 32 + 31 - Math.clz32(word & -word);
  }
  return -1;
}

/** The largest position in lo..hi in the plane at `base`, or -1. */
function lastSet(bits: Int32Array, base: number, lo: number, hi: number): number {
  if (lo > hi) return -1;
  const first = lo >>> 5;
  const last = hi >>> 5;
  for (let w = last; w >= first; w--) {
    let word = bits[base + w] as number;
    if (w === last) word &= (2 << (hi & 31)) - 1;
    if (w === first) word &= -1 << (lo & 31);
    if (word !== 0) return w * 32 + 31 - Math.clz32(word);
  }
  return -1;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
