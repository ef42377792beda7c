/**
 * The skills extension (SEP-2640) in-process, on both eras: the declaration, `skills/list` (pages,
 * cache hints), `skills/get`, skill files through `resources/read`, `resources/directory/read`,
 * and removal. Digests are checked against node:crypto, not against the code under test.
 */
import { createHash } from 'node:crypto';
import { legacyRequest, openSession } from '@edge-mcp/test-kit';
import { describe, expect, test } from 'vitest';
import {
  type AuthInfo,
  createMcpHandler,
  type McpHandlerOptions,
  McpServer,
} from '../src/index.ts';
import { call } from './helpers.ts';

const PDF = `---
name: pdf-processing
description: Extract and fill PDF forms
metadata:
  version: "2.1"
---

# PDF processing
`;
const FORMS = 'Fields: name, date. Ünïcödé counts in bytes.\n';
const LOGO = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00]);

function sha256(content: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}

function server(): McpServer {
  const s = new McpServer({ name: 'skills', version: '1.0.0' });
  s.skill({ 'SKILL.md': PDF, 'references/FORMS.md': FORMS, 'assets/logo.png': LOGO });
  s.skill(
    { 'SKILL.md': '---\nname: refunds\ndescription: Refund requests\n---\nBody' },
    { prefix: 'acme/billing' },
  );
  return s;
}

function handler(s = server(), options: McpHandlerOptions = {}) {
  return createMcpHandler(s, options);
}

const PDF_URI = 'skill://pdf-processing/SKILL.md';

describe('skills on 2026-07-28', () => {
  test('server/discover declares the extension with directoryRead, and resources', async () => {
    const { message } = await call(handler(), 'server/discover');
    expect(message.result.capabilities.extensions).toEqual({
      'io.modelcontextprotocol/skills': { directoryRead: true },
    });
    expect(message.result.capabilities.resources).toBeDefined();
  });

  test('skills/list: entries with the front matter as written, sizes and SHA-256 digests', async () => {
    const { message } = await call(handler(), 'skills/list');
    expect(message.result).toMatchObject({
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
    });
    expect(message.result.nextCursor).toBeUndefined();
    const [pdf, refunds] = message.result.skills;
    expect(pdf).toEqual({
      uri: PDF_URI,
      frontmatter: {
        name: 'pdf-processing',
        description: 'Extract and fill PDF forms',
        metadata: { version: '2.1' },
      },
      resources: [
        { uri: PDF_URI, digest: sha256(PDF), size: Buffer.byteLength(PDF) },
        {
          uri: 'skill://pdf-processing/references/FORMS.md',
          digest: sha256(FORMS),
          size: Buffer.byteLength(FORMS),
        },
        { uri: 'skill://pdf-processing/assets/logo.png', digest: sha256(LOGO), size: LOGO.length },
      ],
    });
    expect(refunds.uri).toBe('skill://acme/billing/refunds/SKILL.md');
  });

  test('skills/list pages by whole skills, and refuses a bad cursor', async () => {
    const h = handler(server(), { pageSize: 1 });
    const first = await call(h, 'skills/list');
    expect(first.message.result.skills.map((s: { uri: string }) => s.uri)).toEqual([PDF_URI]);
    expect(first.message.result.skills[0].resources).toHaveLength(3);
    const cursor = first.message.result.nextCursor;
    expect(typeof cursor).toBe('string');
    const second = await call(h, 'skills/list', { cursor });
    expect(second.message.result.skills[0].uri).toBe('skill://acme/billing/refunds/SKILL.md');
    expect(second.message.result.nextCursor).toBeUndefined();
    const bad = await call(h, 'skills/list', { cursor: 'nope' });
    expect(bad.message.error.code).toBe(-32602);
  });

  test('skills/get: the same entry, cache hints, no cursor; -32602 for a URI that is no skill', async () => {
    const h = handler();
    const listed = (await call(h, 'skills/list')).message.result.skills[0];
    const { message } = await call(h, 'skills/get', { uri: PDF_URI });
    expect(message.result.skill).toEqual(listed);
    expect(message.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    expect(message.result.nextCursor).toBeUndefined();
    for (const uri of ['skill://nope/SKILL.md', 'skill://pdf-processing/references/FORMS.md']) {
      const missing = await call(h, 'skills/get', { uri });
      expect(missing.message.error.code, uri).toBe(-32602);
    }
    expect((await call(h, 'skills/get', {})).message.error.code).toBe(-32602);
  });

  test('resources/read serves each file: SKILL.md and text files as text, bytes as a blob', async () => {
    const h = handler();
    const read = async (uri: string) =>
      (await call(h, 'resources/read', { uri })).message.result.contents[0];
    expect(await read(PDF_URI)).toEqual({ uri: PDF_URI, mimeType: 'text/markdown', text: PDF });
    expect((await read('skill://pdf-processing/references/FORMS.md')).text).toBe(FORMS);
    const logo = await read('skill://pdf-processing/assets/logo.png');
    expect(logo.mimeType).toBe('image/png');
    expect(Buffer.from(logo.blob, 'base64')).toEqual(Buffer.from(LOGO));
  });

  test('resources/list lists each SKILL.md with its name and description, not the other files', async () => {
    const { message } = await call(handler(), 'resources/list');
    expect(message.result.resources).toEqual([
      {
        uri: PDF_URI,
        name: 'pdf-processing',
        description: 'Extract and fill PDF forms',
        mimeType: 'text/markdown',
        size: Buffer.byteLength(PDF),
      },
      expect.objectContaining({ uri: 'skill://acme/billing/refunds/SKILL.md', name: 'refunds' }),
    ]);
  });

  test('resources/directory/read: direct children, folders as inode/directory, pages', async () => {
    const h = handler();
    const root = await call(h, 'resources/directory/read', { uri: 'skill://pdf-processing' });
    expect(root.message.result.resources).toEqual([
      expect.objectContaining({ uri: PDF_URI, mimeType: 'text/markdown' }),
      { uri: 'skill://pdf-processing/references', name: 'references', mimeType: 'inode/directory' },
      { uri: 'skill://pdf-processing/assets', name: 'assets', mimeType: 'inode/directory' },
    ]);
    const sub = await call(h, 'resources/directory/read', { uri: 'skill://pdf-processing/assets' });
    expect(sub.message.result.resources).toEqual([
      {
        uri: 'skill://pdf-processing/assets/logo.png',
        name: 'logo.png',
        mimeType: 'image/png',
        size: 6,
      },
    ]);
    const prefix = await call(h, 'resources/directory/read', { uri: 'skill://acme' });
    expect(prefix.message.result.resources).toEqual([
      { uri: 'skill://acme/billing', name: 'billing', mimeType: 'inode/directory' },
    ]);
    const paged = handler(server(), { pageSize: 2 });
    const page = await call(paged, 'resources/directory/read', { uri: 'skill://pdf-processing' });
    expect(page.message.result.resources).toHaveLength(2);
    const rest = await call(paged, 'resources/directory/read', {
      uri: 'skill://pdf-processing',
      cursor: page.message.result.nextCursor,
    });
    expect(rest.message.result.resources).toHaveLength(1);
    expect(rest.message.result.nextCursor).toBeUndefined();
  });

  test('resources/directory/read of a file, a missing folder or a trailing slash is -32602', async () => {
    const h = handler();
    for (const uri of [PDF_URI, 'skill://nowhere', 'skill://pdf-processing/', 'skill://', 'x']) {
      const { message } = await call(h, 'resources/directory/read', { uri });
      expect(message.error.code, uri).toBe(-32602);
    }
  });

  test('without a skill the extension is not declared and its methods are not found', async () => {
    const s = new McpServer({ name: 'none', version: '1' });
    s.resource('r', 'x://r', {}, () => 'r');
    const h = handler(s);
    const discover = await call(h, 'server/discover');
    expect(discover.message.result.capabilities.extensions).toBeUndefined();
    for (const method of ['skills/list', 'skills/get', 'resources/directory/read']) {
      const answer = await call(h, method, { uri: PDF_URI });
      expect(answer.status, method).toBe(404);
      expect(answer.message.error.code, method).toBe(-32601);
    }
  });

  test('removing a skill takes its files and its entry away, and the extension with the last', async () => {
    const s = new McpServer({ name: 'one', version: '1' });
    s.resource('other', 'docs://other', {}, () => 'other');
    const registration = s.skill({ 'SKILL.md': PDF, 'references/FORMS.md': FORMS });
    const h = handler(s);
    expect((await call(h, 'skills/list')).message.result.skills).toHaveLength(1);
    registration.remove();
    const read = await call(h, 'resources/read', {
      uri: 'skill://pdf-processing/references/FORMS.md',
    });
    expect(read.message.error.code).toBe(-32602);
    expect((await call(h, 'skills/list')).message.error.code).toBe(-32601);
    expect(
      (await call(h, 'server/discover')).message.result.capabilities.extensions,
    ).toBeUndefined();
    // Registered again (the same URIs are free once more).
    s.skill({ 'SKILL.md': PDF });
    expect((await call(h, 'skills/get', { uri: PDF_URI })).message.result.skill.uri).toBe(PDF_URI);
  });

  test('the extension sits beside the tasks extension when both are on', async () => {
    const s = server();
    s.tool('slow', { taskSupport: 'optional' }, () => 'done');
    const { message } = await call(handler(s), 'server/discover');
    expect(Object.keys(message.result.capabilities.extensions).sort()).toEqual([
      'io.modelcontextprotocol/skills',
      'io.modelcontextprotocol/tasks',
    ]);
  });
});

describe('skills with scopes', () => {
  const TOKENS: Record<string, AuthInfo> = {
    reader: { principal: 'r', scopes: ['mcp'] },
    admin: { principal: 'a', scopes: ['mcp', 'admin'] },
  };
  const guarded = (hideUnauthorized: boolean) => {
    const s = new McpServer({ name: 'scoped', version: '1' });
    s.skill({ 'SKILL.md': PDF, 'references/FORMS.md': FORMS }, { scopes: ['admin'] });
    s.skill({ 'SKILL.md': '---\nname: open\ndescription: For all\n---\n' });
    return createMcpHandler(s, {
      auth: {
        resource: 'http://127.0.0.1:8787/mcp',
        authorizationServers: [],
        verify: (token) => TOKENS[token],
        hideUnauthorized,
      },
    });
  };
  const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
  const uris = (message: Record<string, any>, field: string) =>
    message.result[field].map((entry: { uri: string }) => entry.uri);

  test('a skill needs its scopes to be got or read: 403 without them', async () => {
    const h = guarded(false);
    const get = await call(h, 'skills/get', { uri: PDF_URI }, as('reader'));
    expect(get.status).toBe(403);
    const read = await call(
      h,
      'resources/read',
      { uri: 'skill://pdf-processing/references/FORMS.md' },
      as('reader'),
    );
    expect(read.status).toBe(403);
    expect((await call(h, 'skills/get', { uri: PDF_URI }, as('admin'))).status).toBe(200);
    // Not hidden: listed (and its folder readable) for everyone.
    const list = await call(h, 'skills/list', {}, as('reader'));
    expect(uris(list.message, 'skills')).toEqual([PDF_URI, 'skill://open/SKILL.md']);
    const dir = await call(
      h,
      'resources/directory/read',
      { uri: 'skill://pdf-processing' },
      as('reader'),
    );
    expect(uris(dir.message, 'resources')).toEqual([PDF_URI, 'skill://pdf-processing/references']);
  });

  test('with hideUnauthorized, a skill the caller cannot use is not listed, nor its folder', async () => {
    const h = guarded(true);
    const list = await call(h, 'skills/list', {}, as('reader'));
    expect(uris(list.message, 'skills')).toEqual(['skill://open/SKILL.md']);
    const dir = await call(
      h,
      'resources/directory/read',
      { uri: 'skill://pdf-processing' },
      as('reader'),
    );
    expect(dir.message.error.code).toBe(-32602);
    const all = await call(h, 'skills/list', {}, as('admin'));
    expect(uris(all.message, 'skills')).toEqual([PDF_URI, 'skill://open/SKILL.md']);
    const seen = await call(
      h,
      'resources/directory/read',
      { uri: 'skill://pdf-processing' },
      as('admin'),
    );
    expect(uris(seen.message, 'resources')).toEqual([PDF_URI, 'skill://pdf-processing/references']);
  });
});

describe('skills on the legacy revisions', () => {
  async function legacyCall(
    h: ReturnType<typeof handler>,
    session: string,
    method: string,
    params?: Record<string, unknown>,
  ) {
    const response = await h.fetch(legacyRequest(method, params, session));
    return (await response.json()) as Record<string, any>;
  }

  test('initialize declares the extension; the methods answer plainly, errors are -32602', async () => {
    const h = handler();
    const init = await h.fetch(
      legacyRequest('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'c', version: '1' },
      }),
    );
    const body = await init.json();
    expect(body.result.capabilities.extensions).toEqual({
      'io.modelcontextprotocol/skills': { directoryRead: true },
    });
    const session = await openSession(h);
    const list = await legacyCall(h, session, 'skills/list');
    expect(list.result.skills).toHaveLength(2);
    expect(list.result.ttlMs).toBeUndefined();
    const get = await legacyCall(h, session, 'skills/get', { uri: PDF_URI });
    expect(get.result.skill.resources[0].digest).toBe(sha256(PDF));
    expect(
      (await legacyCall(h, session, 'skills/get', { uri: 'skill://x/SKILL.md' })).error.code,
    ).toBe(-32602);
    const dir = await legacyCall(h, session, 'resources/directory/read', {
      uri: 'skill://pdf-processing/references',
    });
    expect(dir.result.resources.map((r: { uri: string }) => r.uri)).toEqual([
      'skill://pdf-processing/references/FORMS.md',
    ]);
    const notDir = await legacyCall(h, session, 'resources/directory/read', { uri: PDF_URI });
    expect(notDir.error.code).toBe(-32602);
  });
});
