/**
 * What `server.skill()` refuses, as `SkillError`s (-32602) naming the rule: the extension's limits
 * (512 files, 16 MiB), the Agent Skills names, paths, and front matter; and the YAML front matter
 * it reads, value by value as YAML 1.2 reads it.
 */
import { describe, expect, test } from 'vitest';
import { createMcpHandler, McpServer, SkillError, type SkillFiles } from '../src/index.ts';
import { call } from './helpers.ts';

const MANIFEST = '---\nname: demo\ndescription: A demo skill\n---\nBody\n';

function register(files: SkillFiles, options = {}) {
  return new McpServer({ name: 'rules', version: '1' }).skill(files, options);
}

function refusal(files: SkillFiles, options = {}): SkillError {
  try {
    register(files, options);
  } catch (error) {
    if (error instanceof SkillError) return error;
    throw error;
  }
  throw new Error('the skill was accepted');
}

async function frontmatterOf(manifest: string): Promise<unknown> {
  const s = new McpServer({ name: 'fm', version: '1' });
  s.skill({ 'SKILL.md': manifest });
  const { message } = await call(createMcpHandler(s), 'skills/list');
  return message.result.skills[0].frontmatter;
}

function filesOf(count: number): Record<string, string> {
  const files: Record<string, string> = { 'SKILL.md': MANIFEST };
  for (let i = 1; i < count; i++) files[`refs/${i}.md`] = 'x';
  return files;
}

describe('skill limits', () => {
  test('512 files (SKILL.md included) are served; 513 are refused', () => {
    expect(() => register(filesOf(512))).not.toThrow();
    const error = refusal(filesOf(513));
    expect(error.rule).toBe('resources');
    expect(error.code).toBe(-32602);
    expect(error.data).toEqual({ rule: 'resources' });
  });

  test('16 MiB of files together are served; one byte more is refused', () => {
    const budget = 16 * 1024 * 1024 - new TextEncoder().encode(MANIFEST).length;
    const exact = new Uint8Array(budget);
    expect(() => register({ 'SKILL.md': MANIFEST, 'data.bin': exact })).not.toThrow();
    const half = new Uint8Array(budget / 2);
    const error = refusal({
      'SKILL.md': MANIFEST,
      'a.bin': half,
      'b.bin': new Uint8Array(budget / 2 + 1),
    });
    expect(error.rule).toBe('size');
  });

  test('names follow the Agent Skills rules', () => {
    for (const name of ['Demo', 'a--b', '-demo', 'demo-', 'de_mo', 'x'.repeat(65), '']) {
      const error = refusal({ 'SKILL.md': `---\nname: "${name}"\ndescription: d\n---\n` });
      expect(error.rule, name).toBe('name');
    }
    expect(() =>
      register({ 'SKILL.md': `---\nname: ${'x'.repeat(64)}\ndescription: d\n---\n` }),
    ).not.toThrow();
    expect(refusal({ 'SKILL.md': MANIFEST }, { prefix: 'a b' }).rule).toBe('name');
    expect(refusal({ 'SKILL.md': MANIFEST }, { prefix: 'a//b' }).rule).toBe('name');
  });

  test('paths are relative paths of plain segments', () => {
    for (const path of ['../up.md', 'a//b.md', './a.md', '/abs.md', 'a\\b.md', 'dir/']) {
      expect(refusal({ 'SKILL.md': MANIFEST, [path]: 'x' }).rule, path).toBe('path');
    }
  });

  test('SKILL.md must exist and begin with front matter naming and describing the skill', () => {
    expect(refusal({ 'README.md': 'x' }).rule).toBe('frontmatter');
    expect(refusal({ 'SKILL.md': '# no front matter' }).rule).toBe('frontmatter');
    expect(refusal({ 'SKILL.md': '---\nname: demo\n---\n' }).rule).toBe('frontmatter');
    expect(
      refusal({ 'SKILL.md': `---\nname: demo\ndescription: ${'d'.repeat(1025)}\n---\n` }).rule,
    ).toBe('frontmatter');
    expect(refusal({ 'SKILL.md': Uint8Array.from([0xff, 0xfe]) }).rule).toBe('frontmatter');
  });

  test('a URI served already is refused, and so is an unknown option', () => {
    const s = new McpServer({ name: 'dup', version: '1' });
    s.skill({ 'SKILL.md': MANIFEST });
    expect(() => s.skill({ 'SKILL.md': MANIFEST })).toThrow(
      /Duplicate registration: skill:\/\/demo\/SKILL.md/,
    );
    expect(() => s.skill({ 'SKILL.md': MANIFEST }, { prefx: 'a' } as never)).toThrow(TypeError);
  });

  test('a SkillError a tool throws is answered -32602', async () => {
    const s = new McpServer({ name: 'tool', version: '1' });
    s.tool('install', {}, () => {
      s.skill({ 'SKILL.md': '# none' });
      return 'installed';
    });
    const { message } = await call(createMcpHandler(s), 'tools/call', {
      name: 'install',
      arguments: {},
    });
    expect(message.error).toMatchObject({ code: -32602, data: { rule: 'frontmatter' } });
  });
});

describe('front matter', () => {
  test('scalars as YAML 1.2 (core schema) reads them', async () => {
    const fm = await frontmatterOf(`---
name: demo
description: 'It''s a demo: quoted'
license: Apache-2.0
count: 12
ratio: 0.5
octal: 0o17
hex: 0x1F
on: true
off: False
empty:
tilde: ~
version: "2.1"
escaped: "tab\\there \\u00e9"
trailing: plain text # a comment
url: https://example.com/a#frag
---
`);
    expect(fm).toEqual({
      name: 'demo',
      description: "It's a demo: quoted",
      license: 'Apache-2.0',
      count: 12,
      ratio: 0.5,
      octal: 15,
      hex: 31,
      on: true,
      off: false,
      empty: null,
      tilde: null,
      version: '2.1',
      escaped: 'tab\there é',
      trailing: 'plain text',
      url: 'https://example.com/a#frag',
    });
  });

  test('nested mappings, sequences, flow sequences and block scalars', async () => {
    const fm = await frontmatterOf(`---
# a comment
name: demo
description: >
  Folded onto
  one line

  and a second
literal: |
  line one
    indented
  line three
stripped: |-
  no newline
metadata:
  author: docs
  nested:
    deep: 1
tags:
  - pdf
  - "forms"
same-indent:
- a
- b
flow: [a, "b c", 3]
plain: first
  continued
---
`);
    expect(fm).toEqual({
      name: 'demo',
      description: 'Folded onto one line\nand a second\n',
      literal: 'line one\n  indented\nline three\n',
      stripped: 'no newline',
      metadata: { author: 'docs', nested: { deep: 1 } },
      tags: ['pdf', 'forms'],
      'same-indent': ['a', 'b'],
      flow: ['a', 'b c', 3],
      plain: 'first continued',
    });
  });

  test('what it does not read is refused, with the line', () => {
    const cases = [
      'anchor: &a value',
      'flow: {a: 1}',
      'tag: !!str 1',
      'colon: a: b',
      'dup: 1\ndup: 2',
      'list:\n  - key: value',
      'bad: "unterminated',
      'inf: .inf',
    ];
    for (const line of cases) {
      const error = refusal({ 'SKILL.md': `---\nname: demo\ndescription: d\n${line}\n---\n` });
      expect(error.rule, line).toBe('frontmatter');
      expect(error.message, line).toMatch(/front matter line \d+/);
    }
  });
});
