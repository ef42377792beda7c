import { describe, expect, test } from 'vitest';
import { compileTemplate, MAX_TEMPLATE_URI_LENGTH } from '../src/server/uri-template.ts';

describe('URI templates (RFC 6570 subset)', () => {
  test('each operator matches what it expands to', () => {
    expect(compileTemplate('users://{id}/profile').match('users://42/profile')).toEqual({
      id: '42',
    });
    expect(compileTemplate('files://{+path}').match('files://a/b/c.txt')).toEqual({
      path: 'a/b/c.txt',
    });
    // {#a,b} expands to #x,y: one "#", values joined by commas.
    expect(compileTemplate('doc://page{#section,line}').match('doc://page#intro,12')).toEqual({
      section: 'intro',
      line: '12',
    });
    expect(compileTemplate('doc://page{#section,line}').match('doc://page#intro#12')).toBe(
      undefined,
    );
    expect(compileTemplate('tree://root{/a,b}').match('tree://root/x/y')).toEqual({
      a: 'x',
      b: 'y',
    });
    expect(compileTemplate('host://{name}{.tld}').match('host://example.org')).toEqual({
      name: 'example',
      tld: 'org',
    });
    expect(
      compileTemplate('search://items{?q,limit}').match('search://items?q=cat&limit=5'),
    ).toEqual({
      q: 'cat',
      limit: '5',
    });
    expect(compileTemplate('users://{id}/profile').match('users://42/other')).toBe(undefined);
  });

  test('the template keeps its source and variables, query ones included', () => {
    const template = compileTemplate('search://{kind}/items{?q,limit}');
    expect(template.source).toBe('search://{kind}/items{?q,limit}');
    expect(template.variables).toEqual(['kind', 'q', 'limit']);
  });

  test('simple values stop at /, ? and #; + and # values may hold them', () => {
    const user = compileTemplate('users://{id}/profile');
    expect(user.match('users://a/b/profile')).toBe(undefined);
    expect(user.match('users://a?b/profile')).toBe(undefined);
    expect(user.match('users://a#b/profile')).toBe(undefined);
    expect(compileTemplate('files://{+path}').match('files://a/b?c#d')).toEqual({
      path: 'a/b?c#d',
    });
    const fragment = compileTemplate('doc://page{#section}');
    expect(fragment.match('doc://page#a/b?c')).toEqual({ section: 'a/b?c' });
    expect(fragment.match('doc://page')).toBe(undefined);
    expect(fragment.match('doc://pagea')).toBe(undefined);
    // No line terminators in + and # values (as the RegExp's `.` had it); simple values allow them.
    expect(compileTemplate('files://{+path}').match('files://a\nb')).toBe(undefined);
    expect(user.match('users://a\nb/profile')).toEqual({ id: 'a\nb' });
  });

  test('. and / put their prefix before every value, and every value must be there', () => {
    const labels = compileTemplate('host://{name}{.a,b}');
    expect(labels.match('host://x.y.z')).toEqual({ name: 'x', a: 'y', b: 'z' });
    expect(labels.match('host://x.y')).toBe(undefined);
    const segments = compileTemplate('tree://root{/a,b}');
    expect(segments.match('tree://root/x')).toBe(undefined);
    expect(segments.match('tree://root/x/y/z')).toBe(undefined);
  });

  test('? and & parts are optional and read from the query string', () => {
    const search = compileTemplate('search://items{?q,limit}');
    expect(search.match('search://items')).toEqual({});
    expect(search.match('search://items?limit=5')).toEqual({ limit: '5' });
    expect(search.match('search://items?q=a%20b+c&x=1')).toEqual({ q: 'a b c' });
    expect(search.match('search://itemsX')).toBe(undefined);
    expect(search.match('search://items/x')).toBe(undefined);
    expect(compileTemplate('search://items{?q}{&page}').match('search://items?q=x&page=2')).toEqual(
      { q: 'x', page: '2' },
    );
    // The + value is as short as it can be, so the query part is not in it.
    expect(compileTemplate('files://{+path}{?q}').match('files://a/b?q=1')).toEqual({
      path: 'a/b',
      q: '1',
    });
  });

  test('empty values do not match', () => {
    expect(compileTemplate('users://{id}/profile').match('users:///profile')).toBe(undefined);
    expect(compileTemplate('files://{+path}').match('files://')).toBe(undefined);
    expect(compileTemplate('tree://root{/a,b}').match('tree://root//y')).toBe(undefined);
    expect(compileTemplate('doc://page{#section}').match('doc://page#')).toBe(undefined);
    expect(compileTemplate('x://{a,b}').match('x://a,')).toBe(undefined);
    expect(compileTemplate('host://{name}{.tld}').match('host://example.')).toBe(undefined);
  });

  test('values are percent-decoded; a malformed escape is kept as it is', () => {
    const user = compileTemplate('users://{id}/profile');
    expect(user.match('users://a%20b/profile')).toEqual({ id: 'a b' });
    expect(user.match('users://a%2Fb/profile')).toEqual({ id: 'a/b' });
    expect(user.match('users://100%/profile')).toEqual({ id: '100%' });
    expect(compileTemplate('files://{+path}').match('files://caf%C3%A9/%E2%82%AC')).toEqual({
      path: 'café/€',
    });
  });

  test('ambiguous separators: simple values are as long as they can be, + and # as short', () => {
    expect(compileTemplate('x://{a}.{b}').match('x://1.2.3')).toEqual({ a: '1.2', b: '3' });
    expect(compileTemplate('host://{name}{.tld}').match('host://www.example.org')).toEqual({
      name: 'www.example',
      tld: 'org',
    });
    expect(compileTemplate('users://{first}-{last}').match('users://mary-jane-smith')).toEqual({
      first: 'mary-jane',
      last: 'smith',
    });
    expect(compileTemplate('x://{a,b}').match('x://1,2,3')).toEqual({ a: '1,2', b: '3' });
    expect(compileTemplate('x://{+a}/{+b}').match('x://x/y/z')).toEqual({ a: 'x', b: 'y/z' });
    expect(compileTemplate('x://{#a,b}').match('x://#1,2,3')).toEqual({ a: '1', b: '2,3' });
    expect(compileTemplate('x://{a}-{+b}').match('x://1-2-3/4')).toEqual({ a: '1-2', b: '3/4' });
    expect(compileTemplate('x://{+a}-{b}').match('x://1-2-3')).toEqual({ a: '1', b: '2-3' });
  });

  test(`URIs longer than MAX_TEMPLATE_URI_LENGTH (${MAX_TEMPLATE_URI_LENGTH}) match nothing`, () => {
    const files = compileTemplate('files://{+path}');
    const fits = `files://${'a'.repeat(MAX_TEMPLATE_URI_LENGTH - 'files://'.length)}`;
    expect(files.match(fits)?.path).toHaveLength(MAX_TEMPLATE_URI_LENGTH - 'files://'.length);
    expect(files.match(`${fits}a`)).toBe(undefined);
  });

  // The RegExp this replaced backtracked: x://{a}.{b}.{c} took 17 s on a 4 KiB URI of dots and a
  // slash, the seven-expression template 2.8 s on 128 dots and a slash. On 16 KiB versions of the
  // inputs below it ran past 30 s (stopped there) for every template but users://{first}-{last},
  // which took 0.35 s at 16 KiB and 3.8 s at 64 KiB.
  // The matcher now is linear in the URI's length, and rejects longer URIs without looking.
  const hostile = [
    ['x://{a}.{b}.{c}.{d}.{e}/{f}-{g}', 'x://', '.', '/'],
    ['x://{a}.{b}.{c}.{d}.{e}/{f}-{g}', 'x://', 'a.-', '/'],
    ['x://{a}.{b}.{c}', 'x://', '.', '/'],
    ['users://{first}-{last}', 'users://', '-', '/'],
    ['x://{+a}/{+b}/{+c}{?q,r}', 'x://', '/', '\n'],
    ['x://{+a}{#b,c}{?q}{&r}-{d}', 'x://', '#,?&-', '/'],
  ] as const;

  test.each(hostile)(
    '%s against a 1 MiB non-matching URI costs milliseconds',
    (source, start, unit, end) => {
      const template = compileTemplate(source);
      const uri = `${start}${unit.repeat((1024 * 1024) / unit.length)}${end}`;
      const began = performance.now();
      expect(template.match(uri)).toBe(undefined);
      expect(performance.now() - began).toBeLessThan(500);
    },
  );

  // Under the length limit, so the whole scan runs.
  test.each(hostile)(
    '%s against a non-matching URI just under the limit costs milliseconds',
    (source, start, unit, end) => {
      const template = compileTemplate(source);
      const body = unit.repeat(
        Math.floor((MAX_TEMPLATE_URI_LENGTH - start.length - 1) / unit.length),
      );
      const uri = `${start}${body}${end}`;
      expect(uri.length).toBeLessThanOrEqual(MAX_TEMPLATE_URI_LENGTH);
      expect(uri.length).toBeGreaterThan(MAX_TEMPLATE_URI_LENGTH - 8);
      const began = performance.now();
      expect(template.match(uri)).toBe(undefined);
      expect(performance.now() - began).toBeLessThan(500);
    },
  );

  test('a long URI just under the limit that does match is matched in milliseconds', () => {
    const template = compileTemplate('x://{a}.{b}.{c}.{d}.{e}/{f}-{g}');
    const long = 'e'.repeat(MAX_TEMPLATE_URI_LENGTH - 'x://a.b.c.d./f-g'.length);
    const began = performance.now();
    const found = template.match(`x://a.b.c.d.${long}/f-g`);
    expect(performance.now() - began).toBeLessThan(500);
    expect({ ...found, e: found?.e === long }).toEqual({
      a: 'a',
      b: 'b',
      c: 'c',
      d: 'd',
      e: true,
      f: 'f',
      g: 'g',
    });
  });
});
