/**
 * JSON laid out the way the repository's Biome formatter wants it (objects one key a line, arrays
 * of plain values on one line when that fits in 100 columns), so a fresh results file passes
 * `biome check` as written.
 */

const WIDTH = 100;

const plain = (value: unknown) => value === null || typeof value !== 'object';

function format(value: unknown, indent: string, lead: number): string {
  if (plain(value)) return JSON.stringify(value) ?? 'null';
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const line = `[${value.map((item) => JSON.stringify(item) ?? 'null').join(', ')}]`;
    if (value.every(plain) && lead + line.length + 1 <= WIDTH) return line;
    const items = value.map((item) => `${inner}${format(item, inner, inner.length)}`);
    return `[\n${items.join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(
    ([, item]) => item !== undefined,
  );
  if (entries.length === 0) return '{}';
  const lines = entries.map(([key, item]) => {
    const head = `${inner}${JSON.stringify(key)}: `;
    return head + format(item, inner, head.length);
  });
  return `{\n${lines.join(',\n')}\n${indent}}`;
}

export function toJson(value: unknown): string {
  return `${format(value, '', 0)}\n`;
}
