/**
 * Unknown option names, refused with the nearest known one. A plain-JavaScript caller has no
 * compiler to catch a misspelt option, and an ignored one fails silently (`inputSchem`: a tool
 * without validation; `paht`: a handler on the default path). The checks run where options are
 * taken (registration, construction), never per request.
 *
 * @module
 */

/** The keys of `T` that `K` does not list. */
type Missing<T, K extends readonly PropertyKey[]> = Exclude<keyof T, K[number]>;

/**
 * The known keys of an options type, one list per type, kept in sync by the compiler both ways:
 * a listed name `T` does not have and a key of `T` the list misses are compile errors. Curried so
 * that `T` is given and the list inferred: `optionKeys<ServeOptions>()(['port', 'hostname'])`.
 */
export function optionKeys<T>(): <const K extends readonly (keyof T & string)[]>(
  keys: K & ([Missing<T, K>] extends [never] ? unknown : { readonly missing: Missing<T, K> }),
) => K {
  return (keys) => keys;
}

/**
 * Throws a `TypeError` for the first key of `options` that `known` does not list, naming the
 * nearest known one (`serve(): unknown option "prot" — did you mean "port"?`), or every known one
 * when none is near. `prefix` names a nested object (`'limits.'`). Not an object: a `TypeError` too.
 */
export function checkOptionKeys(
  options: unknown,
  known: readonly string[],
  what: string,
  prefix = '',
): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new TypeError(
      prefix === ''
        ? `${what}: options must be an object`
        : `${what}: option "${prefix.slice(0, -1)}" must be an object`,
    );
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const near = nearestName(key, known);
    throw new TypeError(
      near === undefined
        ? `${what}: unknown option "${prefix}${key}" (known: ${known.join(', ')})`
        : `${what}: unknown option "${prefix}${key}" — did you mean "${prefix}${near}"?`,
    );
  }
}

/**
 * The name in `names` closest to `name` (case ignored; a swap of neighbours counts as one edit),
 * if it is within `maxDistance` edits (by default a third of the name's length, at least 2); the
 * first of equals wins.
 */
export function nearestName(
  name: string,
  names: readonly string[],
  maxDistance = Math.max(2, Math.floor(name.length / 3)),
): string | undefined {
  const wanted = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (const candidate of names) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
function editDistance(a: string, b: string): number {
  // Three rows of the table are enough: the swap looks two rows back.
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, (before[j - 2] as number) + 1);
      row.push(d);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length] as number;
}
