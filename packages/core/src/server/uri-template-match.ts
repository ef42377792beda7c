/**
 * The matcher behind `compileTemplate` (uri-template.ts): a dynamic program over (step,
 * position) on bit sets, which never backtracks.
 *
 * @module
 */

/**
 * What a template compiles to: a sequence of steps, each consuming part of the URI.
 * - `literal`: exactly `text` (`slots`: each character's table, see {@link Pattern}).
 * - `value`: one or more characters, captured as variable `name`. Simple, `.` and `/` values
 *   exclude `/`, `?`, `#` and take the longest run that leaves the rest matchable; `+` and `#`
 *   values (`reserved`) take any character but a line terminator and the shortest such run.
 * - `query`: optional; when present, a `?` or `&` and then the longest run of non-line-terminators
 *   that leaves the rest matchable. The variables are read from the query string afterwards.
 */
export type Step =
  | { kind: 'literal'; text: string; slots: number[] }
  | { kind: 'value'; name: string; reserved: boolean }
  | { kind: 'query' };

/** The steps, and the characters of the literals, each with a bit table of where it occurs. */
export interface Pattern {
  steps: Step[];
  /** Table of each ASCII character that has one, else -1. */
  ascii: Int32Array;
  /** Tables of the other characters that have one. */
  other: Map<number, number>;
  tables: number;
}

/** Gives each distinct character of the literals a bit table. */
export function tabulate(steps: Step[]): Pattern {
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
export function matchSteps(pattern: Pattern, uri: string): [string, string][] | undefined {
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
