/**
 * Generators of fuzzed exchanges: well-formed-ish messages of every MCP method in both eras,
 * each field sometimes replaced by something else (wrong types, huge strings, deep nesting, odd
 * unicode, prototype keys), wrapped in bodies that are sometimes batches, notifications, client
 * responses, raw text or bytes; headers edited (dropped, replaced, duplicated); random HTTP
 * methods, paths, hosts, session ids, and the points where the client gives up.
 */
import { LEGACY_VERSIONS, LOG_LEVELS, MODERN_VERSION } from '@edge-mcp/core';
import fc from 'fast-check';
import { LANGUAGES, NOTE_IDS, README_URI, TOOL_NAMES } from '../server.ts';
import type {
  AbortPlan,
  AnswerPlan,
  Body,
  Era,
  FuzzRequest,
  HeaderOp,
  ReadPlan,
  Scenario,
  ServerAction,
  SessionRef,
} from './model.ts';

type Json = unknown;
type Params = Record<string, unknown>;

/** Every method name of MCP (client→server, server→client, notifications, tasks). */
export const MCP_METHODS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'server/discover',
  'subscriptions/listen',
  'sampling/createMessage',
  'elicitation/create',
  'roots/list',
  'tasks/get',
  'tasks/list',
  'tasks/result',
  'tasks/cancel',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/message',
  'notifications/roots/list_changed',
  'notifications/resources/updated',
  'notifications/resources/list_changed',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/elicitation/complete',
  'notifications/tasks/status',
  'notifications/subscriptions/acknowledged',
] as const;

// --- leaves ------------------------------------------------------------------------------------

/** Characters that break naive code: line separators, NUL, BOM, lone surrogates, RTL, emoji. */
const ODD = [
  '\u2028',
  '\u2029',
  '\u0000',
  '\uFEFF',
  '\uD800',
  '\uDFFF',
  '\u202E',
  '👩‍💻',
  '\r\n',
  '\n\ndata: x\n\n',
  ':',
  '"',
  '\\',
  '</script>',
  '%00',
  '{id}',
  '..',
  '/',
] as const;

/** Keys on Object.prototype and its friends. */
const PROTO_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'then',
] as const;

const oddString = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.string({ maxLength: 8 }) },
      { weight: 2, arbitrary: fc.constantFrom(...ODD) },
      { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
      { weight: 1, arbitrary: fc.constantFrom(...PROTO_KEYS) },
    ),
    { maxLength: 4 },
  )
  .map((parts) => parts.join(''));

/** A string that expands into N characters when the body is serialized (see `expand`). */
const hugeString = fc
  .oneof(
    { weight: 6, arbitrary: fc.constantFrom(70_000, 300_000) },
    { weight: 1, arbitrary: fc.constant(5_000_000) },
  )
  .map((n) => `@@huge:${n}@@`);

/** A value nested N deep (arrays or objects), expanded when the body is serialized. */
const deepValue = fc
  .tuple(fc.constantFrom(64, 1000, 20_000, 100_000), fc.constantFrom('a', 'o'))
  .map(([n, kind]) => `@@deep:${n}:${kind}@@`);

/** An object with prototype-named own keys (built through JSON.parse, as a server would see it). */
const protoObject = fc
  .subarray([...PROTO_KEYS], { minLength: 1 })
  .chain((keys) =>
    fc
      .tuple(...keys.map(() => fc.jsonValue({ maxDepth: 1 })))
      .map((values) =>
        JSON.parse(JSON.stringify(Object.fromEntries(keys.map((k, i) => [k, values[i]])))),
      ),
  );

const oddNumber = fc.constantFrom(
  -0,
  -1,
  0.5,
  1e308,
  -1e308,
  2 ** 53 + 2,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
);

/** Anything a field might wrongly hold. */
export const weird: fc.Arbitrary<Json> = fc.oneof(
  { weight: 20, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 12, arbitrary: oddString },
  { weight: 3, arbitrary: oddNumber },
  { weight: 3, arbitrary: fc.constantFrom(null, true, false, [], {}, '') },
  { weight: 3, arbitrary: protoObject },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: deepValue },
);

/** How a table of generators treats each field: as is (strict), or sometimes replaced (loose). */
type Field = <T>(valid: fc.Arbitrary<T>, freq?: number) => fc.Arbitrary<T | Json>;

/** Mostly `valid`, sometimes anything else. */
const mostly: Field = (valid, freq = 12) =>
  fc.oneof({ weight: freq, arbitrary: valid }, { weight: 1, arbitrary: weird });

const exact: Field = (valid) => valid;

const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 2, arbitrary: oddString },
);

const noteUri = fc.oneof(
  fc.constantFrom(...NOTE_IDS).map((id) => `notes://${id}`),
  text.map((id) => `notes://${id}`),
);
const uri = fc.oneof(
  { weight: 3, arbitrary: fc.constant(README_URI) },
  { weight: 3, arbitrary: noteUri },
  { weight: 1, arbitrary: text },
  { weight: 1, arbitrary: fc.webUrl() },
);

const requestIdLike = fc.oneof(fc.integer({ min: -2, max: 40 }), fc.string({ maxLength: 6 }));

/** Methods that are requests of the server's features (weighted towards them). */
const FEATURED = [
  'initialize',
  'tools/call',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/get',
  'completion/complete',
  'logging/setLevel',
  'subscriptions/listen',
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'prompts/list',
  'notifications/cancelled',
  'notifications/progress',
] as const satisfies ReadonlyArray<(typeof MCP_METHODS)[number]>;

interface Tables {
  params: Record<(typeof FEATURED)[number], fc.Arbitrary<Params>>;
  modernMeta: fc.Arbitrary<Params>;
  legacyMeta: fc.Arbitrary<Params>;
}

/** Params and `_meta` of each method, every field passed through `field`. */
function tables(field: Field): Tables {
  const toolArgs: Record<(typeof TOOL_NAMES)[number], fc.Arbitrary<Json>> = {
    echo: fc.record({ text: field(text) }),
    chatty: fc.record(
      {
        count: field(fc.integer({ min: 0, max: 50 })),
        text: field(text),
        pauseMs: field(fc.integer({ min: 0, max: 5 })),
      },
      { requiredKeys: ['count'] },
    ),
    ask: fc.record({ question: field(text) }, { requiredKeys: [] }),
    slow: fc.record({ ms: field(fc.integer({ min: 0, max: 60 })) }),
    boom: fc.constant({}),
    region: fc.record(
      { region: field(text), n: field(fc.integer()), flag: field(fc.boolean()) },
      { requiredKeys: [] },
    ),
    shape: fc.record({
      value: fc.oneof(fc.record({ n: fc.integer() }), fc.jsonValue({ maxDepth: 2 })),
    }),
  };
  const toolCall: fc.Arbitrary<Params> = fc.oneof(
    ...TOOL_NAMES.map((name) => ({
      // The tools that stream, ask and wait are the ones with lifecycles to get wrong.
      weight: name === 'chatty' || name === 'ask' || name === 'slow' ? 3 : 1,
      arbitrary: fc.record({
        name: field(fc.constant(name), 12),
        arguments: field(toolArgs[name], 8),
      }),
    })),
  );
  const capabilities = fc.oneof(
    fc.constant({}),
    fc.constant({ elicitation: {} }),
    fc.constant({ elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } }),
    fc.dictionary(
      fc.constantFrom('elicitation', 'sampling', 'roots', 'experimental'),
      field(fc.constant({})),
      {
        maxKeys: 3,
      },
    ),
  );
  const clientInfo = fc.record({ name: field(text), version: field(text) });
  // A cursor the server did not hand out is invalid: strict lists ask for the first page.
  const list =
    field === exact
      ? fc.constant({})
      : fc.record({ cursor: field(fc.string({ maxLength: 30 })) }, { requiredKeys: [] });
  const progressToken =
    field === exact
      ? fc.oneof(fc.integer(), fc.string({ minLength: 1, maxLength: 12 }))
      : fc.oneof(
          fc.integer(),
          fc.string({ maxLength: 12 }),
          fc.constantFrom('x'.repeat(300), 1.5, null),
          weird,
        );

  const params: Tables['params'] = {
    initialize: fc.record(
      {
        protocolVersion: field(fc.constantFrom(...LEGACY_VERSIONS, MODERN_VERSION, '2024-11-05')),
        capabilities: field(capabilities),
        clientInfo: field(clientInfo),
      },
      { requiredKeys: ['protocolVersion'] },
    ),
    'tools/call': toolCall,
    'resources/read': fc.record({ uri: field(uri) }),
    'resources/subscribe': fc.record({ uri: field(uri) }),
    'resources/unsubscribe': fc.record({ uri: field(uri) }),
    'prompts/get': fc.record(
      {
        name: field(fc.constant('review'), 8),
        arguments: field(
          fc.record(
            { language: field(fc.constantFrom(...LANGUAGES)), focus: field(text) },
            { requiredKeys: [] },
          ),
        ),
      },
      { requiredKeys: ['name'] },
    ),
    'completion/complete': fc.record(
      {
        ref: field(
          fc.oneof(
            fc.record({ type: fc.constant('ref/prompt'), name: field(fc.constant('review')) }),
            fc.record({
              type: fc.constant('ref/resource'),
              uri: field(fc.constantFrom('notes://{id}', README_URI)),
            }),
          ),
        ),
        argument: field(
          fc.record({
            name: field(fc.constantFrom('language', 'focus', 'id', ...PROTO_KEYS)),
            value: field(fc.oneof(fc.constantFrom('', 'ty', 'al', ...LANGUAGES), text)),
          }),
        ),
        context: field(fc.record({ arguments: field(fc.dictionary(text, text, { maxKeys: 3 })) })),
      },
      { requiredKeys: ['ref', 'argument'] },
    ),
    'logging/setLevel': fc.record({ level: field(fc.constantFrom(...LOG_LEVELS)) }),
    'subscriptions/listen': fc.record(
      {
        notifications: field(
          fc.record(
            {
              toolsListChanged: field(fc.boolean()),
              promptsListChanged: field(fc.boolean()),
              resourcesListChanged: field(fc.boolean()),
              resourceSubscriptions: field(fc.array(field(uri), { maxLength: 4 })),
            },
            { requiredKeys: [] },
          ),
        ),
      },
      { requiredKeys: [] },
    ),
    'tools/list': list,
    'resources/list': list,
    'resources/templates/list': list,
    'prompts/list': list,
    'notifications/cancelled': fc.record(
      { requestId: field(requestIdLike), reason: field(text) },
      { requiredKeys: ['requestId'] },
    ),
    'notifications/progress': fc.record({
      progressToken: field(requestIdLike),
      progress: field(fc.integer()),
    }),
  };

  /** 2026-07-28 `_meta`: version, capabilities, client info, log level, progress token. */
  const modernMeta = fc
    .record(
      {
        version: field(fc.constant(MODERN_VERSION), 12),
        caps: field(capabilities, 10),
        info: field(clientInfo),
        level: field(fc.constantFrom(...LOG_LEVELS)),
        progressToken,
      },
      { requiredKeys: ['version', 'caps'] },
    )
    .map((m) => {
      const meta: Params = {
        'io.modelcontextprotocol/protocolVersion': m.version,
        'io.modelcontextprotocol/clientCapabilities': m.caps,
      };
      if ('info' in m) meta['io.modelcontextprotocol/clientInfo'] = m.info;
      if ('level' in m) meta['io.modelcontextprotocol/logLevel'] = m.level;
      if ('progressToken' in m) meta.progressToken = m.progressToken;
      return meta;
    });
  const legacyMeta = fc.record({ progressToken }, { requiredKeys: [] });
  return { params, modernMeta, legacyMeta };
}

const STRICT = tables(exact);
const LOOSE = tables(mostly);

const anyParams: fc.Arbitrary<Params> = fc.dictionary(
  fc.oneof(text, fc.constantFrom(...PROTO_KEYS)),
  weird,
  { maxKeys: 4 },
);

const methodName = fc.oneof(
  { weight: 6, arbitrary: fc.constant('tools/call') },
  {
    weight: 2,
    arbitrary: fc.constantFrom('subscriptions/listen', 'resources/read', 'prompts/get'),
  },
  { weight: 8, arbitrary: fc.constantFrom(...FEATURED) },
  { weight: 3, arbitrary: fc.constantFrom(...MCP_METHODS) },
  { weight: 1, arbitrary: text },
);

// --- messages ----------------------------------------------------------------------------------

const messageId = fc.oneof(
  { weight: 10, arbitrary: fc.integer({ min: 1, max: 1_000_000 }) },
  { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, '', 1.5, null, 2 ** 53) },
  { weight: 1, arbitrary: weird },
);

/**
 * A request (or, without an id, a notification) of `era`: half of them with every field as a
 * client would send it, half with fields sometimes replaced by anything.
 */
function message(era: Era, withId: boolean): fc.Arbitrary<Json> {
  return fc.tuple(methodName, fc.boolean()).chain(([method, strict]) => {
    const table = strict ? STRICT : LOOSE;
    // Own keys only: a random method name may be "toString".
    const params = Object.hasOwn(table.params, method)
      ? table.params[method as keyof Tables['params']]
      : anyParams;
    const meta = era === 'modern' ? table.modernMeta : table.legacyMeta;
    const field = strict ? exact : mostly;
    return fc
      .record(
        {
          jsonrpc: field(fc.constant('2.0'), 30),
          id: strict ? fc.integer({ min: 1, max: 1_000_000 }) : messageId,
          params: field(params, 15),
          meta: fc.oneof(
            { weight: era === 'modern' && strict ? 50 : 4, arbitrary: meta },
            { weight: 1, arbitrary: fc.constant(undefined) },
          ),
        },
        { requiredKeys: ['jsonrpc', 'id', 'params', 'meta'] },
      )
      .map((m) => {
        const out: Record<string, unknown> = { jsonrpc: m.jsonrpc };
        if (withId) out.id = m.id;
        out.method = method;
        let params = m.params;
        if (m.meta !== undefined && typeof params === 'object' && params !== null) {
          params = Array.isArray(params) ? params : { ...params, _meta: m.meta };
        }
        if (params !== undefined) out.params = params;
        return out;
      });
  });
}

/** A client's answer to a server→client request (an id the server may or may not be waiting on). */
const clientResponse: fc.Arbitrary<Json> = fc.oneof(
  fc.record({ jsonrpc: fc.constant('2.0'), id: requestIdLike, result: mostly(fc.constant({})) }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: requestIdLike,
    error: mostly(fc.record({ code: fc.integer(), message: text, data: weird })),
  }),
);

function bodyOf(era: Era): fc.Arbitrary<Body> {
  const batchOf = fc.array(
    fc.oneof(
      { weight: 5, arbitrary: message(era, true) },
      { weight: 2, arbitrary: message(era, false) },
      { weight: 1, arbitrary: clientResponse },
      { weight: 1, arbitrary: weird },
    ),
    { maxLength: 12 },
  );
  return fc.oneof(
    { weight: 24, arbitrary: message(era, true).map((value) => json(value)) },
    { weight: 3, arbitrary: message(era, false).map((value) => json(value)) },
    { weight: 2, arbitrary: clientResponse.map((value) => json(value)) },
    { weight: era === 'legacy' ? 4 : 1, arbitrary: batchOf.map((value) => json(value)) },
    { weight: 1, arbitrary: weird.map((value) => json(value)) },
    { weight: 1, arbitrary: rawText },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes): Body => ({ kind: 'bytes', bytes })),
    },
  );
}

function json(value: unknown): Body {
  return { kind: 'json', value };
}

/** Text that is not (quite) JSON: truncated messages, stray characters, nothing. */
const rawText: fc.Arbitrary<Body> = fc
  .oneof(
    message('legacy', true).chain((m) => {
      const full = JSON.stringify(m) ?? '';
      return fc.nat(full.length).map((cut) => full.slice(0, cut));
    }),
    oddString,
    fc.constantFrom('', ' ', 'null', '[]', '[[]]', '{}', '"2.0"', '\uFEFF{}', '{"jsonrpc":"2.0"'),
  )
  .map((text): Body => ({ kind: 'text', text }));

// --- headers -----------------------------------------------------------------------------------

/** Header values any HTTP client can send: visible ASCII, spaces, tabs and Latin-1 bytes. */
const headerValue = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 24 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      'application/json',
      'application/json; charset=utf-8',
      'text/event-stream',
      'application/json, text/event-stream',
      '*/*',
      'text/*',
      'APPLICATION/JSON',
      'application/jsonx',
      MODERN_VERSION,
      ...LEGACY_VERSIONS,
      '2024-11-05',
      'tools/call',
      'echo',
      '=?base64?ZWNobw==?=',
      '=?base64?not base64?=',
      '=?base64?/w==?=',
      '0-1',
      '1-0',
      '0-999999',
      '99-1',
      'x-y',
      'null',
      'http://evil.example',
      'http://localhost:3000',
      'null',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.integer({ min: 0x80, max: 0xff }), { maxLength: 6 })
      .map((codes) => String.fromCharCode(...codes)),
  },
);

const HEADER_NAMES = [
  'content-type',
  'accept',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'mcp-param-region',
  'mcp-param-n',
  'mcp-param-flag',
  'mcp-param-other',
  'mcp-session-id',
  'last-event-id',
  'origin',
  'user-agent',
] as const;

const headerOp: fc.Arbitrary<HeaderOp> = fc.oneof(
  fc.record({ op: fc.constant('drop' as const), name: fc.constantFrom(...HEADER_NAMES) }),
  fc.record({
    op: fc.constantFrom('set' as const, 'append' as const),
    name: fc.constantFrom(...HEADER_NAMES),
    value: headerValue,
  }),
);

// --- the exchange ------------------------------------------------------------------------------

const abortPlan: fc.Arbitrary<AbortPlan> = fc.oneof(
  { weight: 14, arbitrary: fc.constant({ kind: 'never' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'before' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('after-ms' as const), ms: fc.nat(15) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'after-headers' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('after-events' as const), count: fc.nat(3) }),
  },
);

const readPlan: fc.Arbitrary<ReadPlan> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('full' as const),
      idleMs: fc.constantFrom(2, 10, 30),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('cancel-after' as const), events: fc.nat(3) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'cancel-at-once' as const }) },
);

const answerPlan: fc.Arbitrary<AnswerPlan> = fc.constantFrom(
  'accept',
  'accept',
  'decline',
  'error',
  'garbage',
  'cancel',
  'tamper',
  'none',
);

function sessionRef(era: Era): fc.Arbitrary<SessionRef> {
  return fc.oneof(
    { weight: era === 'legacy' ? 12 : 1, arbitrary: fc.nat(63).map((index) => pool(index)) },
    { weight: era === 'legacy' ? 1 : 10, arbitrary: fc.constant({ kind: 'none' as const }) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(fc.uuid(), fc.string({ unit: 'grapheme-ascii', maxLength: 40 }))
        .map((value): SessionRef => ({ kind: 'literal', value })),
    },
  );
}

function pool(index: number): SessionRef {
  return { kind: 'pool', index };
}

const host = fc.oneof(
  { weight: 20, arbitrary: fc.constant('127.0.0.1:8787') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'localhost',
      'localhost:1',
      '[::1]:8787',
      'evil.example',
      '127.0.0.1.nip.io',
      'LOCALHOST:8787',
    ),
  },
);

const path = fc.oneof(
  { weight: 30, arbitrary: fc.constant('/mcp') },
  {
    weight: 1,
    arbitrary: fc.constantFrom('/', '/mcp/', '/MCP', '/mcp?x=1', '/mcp#frag', '/other', '//mcp'),
  },
);

const httpMethod = fc.oneof(
  { weight: 40, arbitrary: fc.constant('POST') },
  { weight: 4, arbitrary: fc.constant('GET') },
  { weight: 3, arbitrary: fc.constant('DELETE') },
  { weight: 1, arbitrary: fc.constantFrom('PUT', 'PATCH', 'OPTIONS', 'HEAD') },
);

const legacyVersion = fc.oneof(
  { weight: 8, arbitrary: fc.constant('pool' as const) },
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.constantFrom(...LEGACY_VERSIONS) },
  { weight: 1, arbitrary: fc.constantFrom(MODERN_VERSION, '2024-11-05', 'x') },
);

const lastEventId = fc.option(
  fc.oneof(
    fc.tuple(fc.nat(6), fc.nat(30)).map(([stream, seq]) => `${stream}-${seq}`),
    headerValue,
  ),
  { freq: 4, nil: undefined },
);

export function fuzzRequest(era?: Era): fc.Arbitrary<FuzzRequest> {
  const eraArb = era
    ? fc.constant(era)
    : fc.constantFrom<Era>('modern', 'modern', 'modern', 'legacy', 'legacy');
  return eraArb.chain((e) =>
    fc.record({
      era: fc.constant(e),
      httpMethod,
      path,
      host,
      body: bodyOf(e),
      headers: fc.oneof(
        { weight: 6, arbitrary: fc.constant<HeaderOp[]>([]) },
        { weight: 4, arbitrary: fc.array(headerOp, { minLength: 1, maxLength: 4 }) },
      ),
      session: sessionRef(e),
      version: legacyVersion,
      lastEventId,
      delayMs: fc.oneof(
        { weight: 4, arbitrary: fc.constant(0) },
        { weight: 1, arbitrary: fc.nat(5) },
      ),
      abort: abortPlan,
      read: readPlan,
      answer: answerPlan,
    }),
  );
}

const serverAction: fc.Arbitrary<ServerAction> = fc.oneof(
  fc.record({
    kind: fc.constant('list-changed' as const),
    list: fc.constantFrom('tools' as const, 'resources' as const, 'prompts' as const),
    delayMs: fc.nat(10),
  }),
  fc
    .record({ kind: fc.constant('resource-updated' as const), uri, delayMs: fc.nat(10) })
    .map((action) => ({
      ...action,
      uri: typeof action.uri === 'string' ? action.uri : README_URI,
    })),
  fc.record({ kind: fc.constant('register' as const), delayMs: fc.nat(10) }),
);

/** One property run: 1–4 concurrent exchanges and 0–3 server events. */
export function scenario(era?: Era): fc.Arbitrary<Scenario> {
  return fc.record({
    requests: fc.array(fuzzRequest(era), { minLength: 1, maxLength: 4 }),
    actions: fc.oneof(
      { weight: 3, arbitrary: fc.constant<ServerAction[]>([]) },
      { weight: 1, arbitrary: fc.array(serverAction, { maxLength: 3 }) },
    ),
  });
}
