/**
 * `@edge-mcp/core/otel` with the OpenTelemetry SDK's in-memory exporters: spans and metrics after
 * the MCP semantic conventions, the client's trace continued from `_meta`, a handler's own spans
 * as children, cancellation reasons recorded, and the live counters as gauges.
 */
import { legacyRequest, modernRequest, openSession, readAnswer } from '@edge-mcp/test-kit';
import { context, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, expect, test } from 'vitest';
import * as z from 'zod';
import { createMcpHandler, McpServer } from '../src/index.ts';
import { openTelemetry } from '../src/otel.ts';

/** A reader collected on demand. */
class TestReader extends MetricReader {
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});
afterAll(() => {
  context.disable();
  propagation.disable();
});

function setup() {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(spans)],
  });
  const reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const server = new McpServer({ name: 'otel', version: '1' });
  server.tool('add', { inputSchema: z.object({ a: z.number(), b: z.number() }) }, ({ a, b }) => {
    // A span of the tool's own, under the request's span.
    tracerProvider.getTracer('tool').startSpan('add.compute').end();
    return String(a + b);
  });
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => (started = resolve));
  server.tool('wait', {}, (_args, ctx) => {
    started();
    return new Promise((_, reject) =>
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }),
    );
  });
  const handler = createMcpHandler(server, {
    instrumentation: openTelemetry({ tracerProvider, meterProvider }),
  });
  const metricsOf = async () => {
    const { resourceMetrics } = await reader.collect();
    return resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
  };
  return { spans, handler, metricsOf, running };
}

test('a tools/call is a SERVER span after the MCP conventions, in the trace the client sent', async () => {
  const { spans, handler, metricsOf } = setup();
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const answer = await readAnswer(
    await handler.fetch(
      modernRequest(
        'tools/call',
        { name: 'add', arguments: { a: 1, b: 2 } },
        { meta: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } },
      ),
    ),
  );
  expect(answer.message.result.content[0].text).toBe('3');
  const finished = spans.getFinishedSpans();
  const request = finished.find((span) => span.name === 'tools/call add');
  const own = finished.find((span) => span.name === 'add.compute');
  expect(request?.kind).toBe(1); // SpanKind.SERVER
  expect(request?.spanContext().traceId).toBe(traceId);
  expect(request?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
  expect(own?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
  expect(request?.attributes).toMatchObject({
    'mcp.method.name': 'tools/call',
    'mcp.protocol.version': '2026-07-28',
    'gen_ai.tool.name': 'add',
    'gen_ai.operation.name': 'execute_tool',
    'network.transport': 'tcp',
  });
  const duration = (await metricsOf()).find(
    (metric) => metric.descriptor.name === 'mcp.server.operation.duration',
  );
  expect(duration?.descriptor.unit).toBe('s');
  expect(duration?.dataPoints[0]?.attributes).toMatchObject({
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'add',
  });
  expect(duration?.dataPoints[0]?.attributes).not.toHaveProperty('jsonrpc.request.id');
});

test('errors and cancellations are recorded with their code and typed reason', async () => {
  const { spans, handler, running } = setup();
  await handler.fetch(modernRequest('tools/call', { name: 'add', arguments: { a: 'x' } }));
  const client = new AbortController();
  const dropped = handler.fetch(
    modernRequest('tools/call', { name: 'wait' }, { signal: client.signal }),
  );
  await running;
  client.abort();
  await dropped;
  await expect.poll(() => handler.inFlight).toBe(0);
  const [invalid, cancelled] = spans.getFinishedSpans();
  expect(invalid?.status.code).toBe(2); // ERROR
  expect(invalid?.attributes['error.type']).toBe('-32602');
  expect(cancelled?.attributes).toMatchObject({
    'error.type': 'disconnect',
    'edge_mcp.abort.reason': 'disconnect',
  });
});

test('legacy requests carry the session id; sessions and live counters are metrics', async () => {
  const { spans, handler, metricsOf } = setup();
  const session = await openSession(handler);
  await readAnswer(
    await handler.fetch(
      legacyRequest('tools/call', { name: 'add', arguments: { a: 2, b: 2 } }, session),
    ),
  );
  const call = spans.getFinishedSpans().find((span) => span.name === 'tools/call add');
  expect(call?.attributes).toMatchObject({
    'mcp.session.id': session,
    'mcp.protocol.version': '2025-11-25',
  });
  const gauge = (name: string) =>
    metricsOf().then((all) => all.find((metric) => metric.descriptor.name === name));
  expect((await gauge('edge_mcp.server.sessions'))?.dataPoints[0]?.value).toBe(1);
  await handler.close();
  const sessions = await gauge('mcp.server.session.duration');
  expect(sessions?.dataPoints[0]?.attributes).toMatchObject({
    'mcp.protocol.version': '2025-11-25',
    'edge_mcp.session.close_reason': 'shutdown',
  });
});

test("the gauges read the handler's stats only until the handler closes", async () => {
  const reader = new TestReader();
  const instrumentation = openTelemetry({
    meterProvider: new MeterProvider({ readers: [reader] }),
  });
  let reads = 0;
  const release = instrumentation.observe?.(() => {
    reads++;
    return {
      inFlight: 0,
      inFlightBytes: 0,
      sessions: 0,
      sessionsOpened: 0,
      tasks: 0,
      openStreams: 0,
      reaped: 0,
      evicted: 0,
      resumed: 0,
      overflowed: 0,
      dropped: 0,
      rejected: 0,
    };
  });
  await reader.collect();
  expect(reads).toBe(1);
  release?.();
  await reader.collect();
  expect(reads).toBe(1);
});

test('a refused request is a SERVER span with its status and reason, and counts in edge_mcp.server.refused', async () => {
  const { spans, handler, metricsOf } = setup();
  const wrongHost = await handler.fetch(
    modernRequest('tools/call', { name: 'add' }, { url: 'http://evil.example/mcp' }),
  );
  expect(wrongHost.status).toBe(403);
  const wrongPath = await handler.fetch(
    new Request('http://127.0.0.1/elsewhere', { method: 'POST' }),
  );
  expect(wrongPath.status).toBe(404);
  const refused = spans
    .getFinishedSpans()
    .filter((span) => span.status.message?.startsWith('refused'));
  expect(refused.map((span) => [span.name, span.attributes['edge_mcp.refusal.reason']])).toEqual([
    ['POST', 'host-not-allowed'],
    ['POST', 'path'],
  ]);
  expect(refused[0]?.kind).toBe(1); // SpanKind.SERVER
  expect(refused[0]?.status.code).toBe(2); // SpanStatusCode.ERROR
  expect(refused[0]?.attributes).toMatchObject({
    'http.response.status_code': 403,
    'error.type': 'host-not-allowed',
    'http.request.method': 'POST',
  });
  const counter = (await metricsOf()).find(
    (metric) => metric.descriptor.name === 'edge_mcp.server.refused',
  );
  expect(
    counter?.dataPoints.map((point) => [point.attributes['edge_mcp.refusal.reason'], point.value]),
  ).toEqual([
    ['host-not-allowed', 1],
    ['path', 1],
  ]);
});
