/** A compiled URI template (RFC 6570 subset: `{var}`, `{+var}`, `{#var}`, `{/var}`, `{?a,b}`). */
export interface UriTemplate {
  readonly source: string;
  readonly variables: readonly string[];
  match(uri: string): Record<string, string> | undefined;
}

const EXPRESSION = /\{([+#./?&]?)([A-Za-z0-9_,.%]+)\}/g;

export function compileTemplate(source: string): UriTemplate {
  const variables: string[] = [];
  /** Variables read from the path, in capture-group order (query ones come from the query). */
  const positional: string[] = [];
  let pattern = '^';
  let last = 0;
  for (const match of source.matchAll(EXPRESSION)) {
    pattern += escapeRegex(source.slice(last, match.index));
    const operator = match[1] ?? '';
    const names = (match[2] ?? '').split(',');
    variables.push(...names);
    if (operator === '?' || operator === '&') {
      // Query expansions are optional; each variable is read from the query string after matching.
      pattern += '(?:[?&].*)?';
    } else {
      positional.push(...names);
      const value = operator === '+' || operator === '#' ? '(.+?)' : '([^/?#]+)';
      // `.` and `/` prefix every value; `#` prefixes the list once; the rest join with commas.
      pattern +=
        operator === '.' || operator === '/'
          ? names.map(() => `${escapeRegex(operator)}${value}`).join('')
          : `${operator === '#' ? '#' : ''}${names.map(() => value).join(',')}`;
    }
    last = match.index + match[0].length;
  }
  pattern += `${escapeRegex(source.slice(last))}$`;
  const regex = new RegExp(pattern);
  const query = variables.filter((name) => !positional.includes(name));
  return {
    source,
    variables,
    match(uri) {
      const found = regex.exec(uri);
      if (!found) return undefined;
      const result: Record<string, string> = {};
      positional.forEach((name, i) => {
        result[name] = safeDecode(found[i + 1] ?? '');
      });
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

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
