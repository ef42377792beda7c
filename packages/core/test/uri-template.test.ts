import { describe, expect, test } from 'vitest';
import { compileTemplate } from '../src/server/uri-template.ts';

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
});
