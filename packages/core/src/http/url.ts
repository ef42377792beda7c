/**
 * The URL pieces the endpoint reads on every request, taken from the absolute URL string without
 * building a URL object per request (adapters use the same functions).
 */

/** `host[:port]` of an absolute URL, lower-cased, without building a URL object per request. */
export function authorityOf(url: string): string {
  const start = url.indexOf('//') + 2;
  let end = start;
  while (end < url.length) {
    const c = url.charCodeAt(end);
    if (c === 47 || c === 63 || c === 35) break; // '/', '?', '#'
    end++;
  }
  const authority = url.slice(start, end).toLowerCase();
  const at = authority.lastIndexOf('@');
  return at === -1 ? authority : authority.slice(at + 1);
}

/** The host name of an authority: brackets kept for IPv6 literals, port dropped. */
export function hostnameOf(authority: string): string {
  if (authority.startsWith('[')) return authority.slice(0, authority.indexOf(']') + 1);
  const colon = authority.indexOf(':');
  return colon === -1 ? authority : authority.slice(0, colon);
}

/** The path of an absolute URL (no query, no fragment); `/` when it has none. */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  let end = start;
  while (end < url.length) {
    const c = url.charCodeAt(end);
    if (c === 63 || c === 35) break; // '?', '#'
    end++;
  }
  return url.slice(start, end);
}
