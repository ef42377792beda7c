import { matchSteps, type Step, tabulate } from './uri-template-match.ts';

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

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
