/**
 * @module
 * OpenTelemetry for edge-mcp handlers: `createMcpHandler(server, { instrumentation:
 * openTelemetry() })`. Spans and metrics follow OpenTelemetry's semantic conventions for MCP
 * (`mcp.method.name`, `mcp.protocol.version`, `mcp.session.id`, `gen_ai.tool.name`, …), plus the
 * cancellation reason edge-mcp knows. Needs `@opentelemetry/api` (an optional peer dependency);
 * a handler without this instrumentation loads none of it.
 */
import {
  type Attributes,
  type Context,
  type Counter,
  context,
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import type { HandlerStats, RequestEvent, SessionEvent } from './endpoint/events.ts';
import type {
  Instrumentation,
  RequestObservation,
  RequestStart,
} from './endpoint/instrumentation.ts';

export type {
  Instrumentation,
  RequestObservation,
  RequestStart,
} from './endpoint/instrumentation.ts';

export interface OpenTelemetryOptions {
  /** Where spans go. @default the global tracer provider (`trace.getTracerProvider()`) */
  tracerProvider?: TracerProvider;
  /** Where metrics go. @default the global meter provider (`metrics.getMeterProvider()`) */
  meterProvider?: MeterProvider;
  /**
   * Also record `mcp.resource.uri` (opt-in in the conventions: URIs can be high-cardinality and
   * may carry identifiers). @default false
   */
  resourceUri?: boolean;
  /**
   * Continue the client's trace from `params._meta` (`traceparent`, `tracestate`), as the
   * conventions recommend for MCP. @default true
   */
  propagate?: boolean;
}

const SCOPE = '@edge-mcp/core';

/** Methods whose `name` is a tool or a prompt (span name `{method} {name}`), and what it names. */
const TARGET: Readonly<Record<string, 'gen_ai.tool.name' | 'gen_ai.prompt.name'>> = {
  'tools/call': 'gen_ai.tool.name',
  'prompts/get': 'gen_ai.prompt.name',
};

/** The `params._meta` of a request, read as a propagation carrier. */
const META_GETTER = {
  get(carrier: Record<string, unknown>, key: string): string | undefined {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
  keys(carrier: Record<string, unknown>): string[] {
    return Object.keys(carrier);
  },
};

/**
 * An instrumentation that records, per request, a SERVER span named `{mcp.method.name} {target}`
 * and the `mcp.server.operation.duration` histogram; per legacy session, the
 * `mcp.server.session.duration` histogram; and, as observable gauges, the handler's live counters
 * (`edge_mcp.server.in_flight`, `.sessions`, `.open_streams`, `.tasks`) and totals.
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): Instrumentation {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(SCOPE);
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(SCOPE);
  return new OpenTelemetryInstrumentation(tracer, meter, options);
}

class OpenTelemetryInstrumentation implements Instrumentation {
  readonly #tracer: Tracer;
  readonly #meter: Meter;
  readonly #operations: Histogram;
  readonly #sessions: Histogram;
  readonly #refusals: Counter;
  readonly #resourceUri: boolean;
  readonly #propagate: boolean;

  constructor(tracer: Tracer, meter: Meter, options: OpenTelemetryOptions) {
    this.#tracer = tracer;
    this.#meter = meter;
    this.#resourceUri = options.resourceUri ?? false;
    this.#propagate = options.propagate ?? true;
    this.#operations = meter.createHistogram('mcp.server.operation.duration', {
      unit: 's',
      description:
        'MCP request duration as observed on the server, until its result or error is sent',
    });
    this.#sessions = meter.createHistogram('mcp.server.session.duration', {
      unit: 's',
      description: 'The duration of the MCP session as observed on the MCP server',
    });
    this.#refusals = meter.createCounter('edge_mcp.server.refused', {
      description: 'Requests refused before their method ran, by reason and HTTP status',
    });
  }

  /**
   * A refused request: a SERVER span of its own (named by its method, which is the HTTP method
   * when the message was not read), ended at once with the status and the reason as its error,
   * and the `edge_mcp.server.refused` counter.
   */
  refused(event: RequestEvent): void {
    const reason = event.reason ?? 'refused';
    const attributes: Attributes = {
      'error.type': reason,
      'edge_mcp.refusal.reason': reason,
      'http.response.status_code': event.status ?? 0,
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    };
    // A JSON-RPC method (lower case, with a slash) rather than the HTTP method of an unread body.
    if (event.method.includes('/') || event.method === 'initialize')
      attributes['mcp.method.name'] = event.method;
    else attributes['http.request.method'] = event.method;
    if (event.protocolVersion !== undefined)
      attributes['mcp.protocol.version'] = event.protocolVersion;
    if (event.errorCode !== undefined)
      attributes['rpc.response.status_code'] = String(event.errorCode);
    const span = this.#tracer.startSpan(event.method, { kind: SpanKind.SERVER, attributes });
    span.setStatus({ code: SpanStatusCode.ERROR, message: `refused: ${reason}` });
    span.end();
    this.#refusals.add(1, {
      'edge_mcp.refusal.reason': reason,
      'http.response.status_code': event.status ?? 0,
    });
  }

  request(start: RequestStart): RequestObservation {
    const attributes = requestAttributes(start, this.#resourceUri);
    const parent = this.#propagate
      ? propagation.extract(ROOT_CONTEXT, start.meta, META_GETTER)
      : context.active();
    const target = TARGET[start.method] ? start.name : undefined;
    const span = this.#tracer.startSpan(
      target === undefined ? start.method : `${start.method} ${target}`,
      { kind: SpanKind.SERVER, attributes },
      parent,
    );
    return new Observation(span, trace.setSpan(parent, span), attributes, this.#operations);
  }

  sessionClosed(event: SessionEvent, durationMs: number): void {
    const attributes: Attributes = { 'mcp.protocol.version': event.protocolVersion };
    if (event.reason !== undefined && event.reason !== 'session-deleted')
      attributes['edge_mcp.session.close_reason'] = event.reason;
    this.#sessions.record(durationMs / 1000, attributes);
  }

  observe(stats: () => HandlerStats): () => void {
    const gauges = {
      inFlight: this.#meter.createObservableGauge('edge_mcp.server.in_flight', {
        description: 'Requests in flight (open listen streams included)',
      }),
      inFlightBytes: this.#meter.createObservableGauge('edge_mcp.server.in_flight_bytes', {
        unit: 'By',
        description: 'Bytes of request bodies held by the requests in flight',
      }),
      sessions: this.#meter.createObservableGauge('edge_mcp.server.sessions', {
        description: 'Live legacy sessions',
      }),
      openStreams: this.#meter.createObservableGauge('edge_mcp.server.open_streams', {
        description: 'Open SSE connections',
      }),
      tasks: this.#meter.createObservableGauge('edge_mcp.server.tasks', {
        description: 'Task handlers running',
      }),
      totals: this.#meter.createObservableCounter('edge_mcp.server.events', {
        description:
          'Sessions reaped, evicted; streams resumed, overflowed; notifications dropped; requests rejected by a budget',
      }),
    };
    const callback = (result: {
      observe(observable: unknown, value: number, attributes?: Attributes): void;
    }): void => {
      const now = stats();
      result.observe(gauges.inFlight, now.inFlight);
      result.observe(gauges.inFlightBytes, now.inFlightBytes);
      result.observe(gauges.sessions, now.sessions);
      result.observe(gauges.openStreams, now.openStreams);
      result.observe(gauges.tasks, now.tasks);
      for (const kind of [
        'reaped',
        'evicted',
        'resumed',
        'overflowed',
        'dropped',
        'rejected',
      ] as const)
        result.observe(gauges.totals, now[kind], { 'edge_mcp.event': kind });
    };
    const observables = Object.values(gauges);
    this.#meter.addBatchObservableCallback(callback as never, observables);
    return () => this.#meter.removeBatchObservableCallback(callback as never, observables);
  }
}

class Observation implements RequestObservation {
  readonly #span: Span;
  readonly #context: Context;
  readonly #attributes: Attributes;
  readonly #operations: Histogram;
  readonly #started = performance.now();

  constructor(span: Span, ctx: Context, attributes: Attributes, operations: Histogram) {
    this.#span = span;
    this.#context = ctx;
    this.#attributes = attributes;
    this.#operations = operations;
  }

  run<T>(fn: () => T): T {
    return context.with(this.#context, fn);
  }

  end(event: RequestEvent): void {
    const attributes = this.#attributes;
    if (event.outcome === 'error') {
      const code = String(event.errorCode);
      attributes['error.type'] = code;
      attributes['rpc.response.status_code'] = code;
      this.#span.setStatus({ code: SpanStatusCode.ERROR });
    } else if (event.outcome === 'cancelled') {
      // Cancelled: the reason is the error, typed (`disconnect`, `shutdown`, `client-cancel`…).
      attributes['error.type'] = event.reason ?? 'cancelled';
      attributes['edge_mcp.abort.reason'] = event.reason ?? 'cancelled';
      this.#span.setStatus({ code: SpanStatusCode.ERROR, message: `cancelled: ${event.reason}` });
    }
    // The detail the client was not told (a handler's TypeError, say), as the conventions record it.
    if (event.error !== undefined)
      this.#span.addEvent('exception', { 'exception.message': event.error });
    this.#span.setAttributes(attributes);
    this.#span.end();
    this.#operations.record(
      (performance.now() - this.#started) / 1000,
      metricAttributes(attributes),
    );
  }
}

/** The span attributes of a request, as the conventions name them. */
function requestAttributes(start: RequestStart, resourceUri: boolean): Attributes {
  const attributes: Attributes = {
    'mcp.method.name': start.method,
    'mcp.protocol.version': start.protocolVersion,
    'jsonrpc.request.id': String(start.id),
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
  };
  if (start.sessionId !== undefined) attributes['mcp.session.id'] = start.sessionId;
  const target = TARGET[start.method];
  if (target !== undefined && start.name !== undefined) {
    attributes[target] = start.name;
    if (target === 'gen_ai.tool.name') attributes['gen_ai.operation.name'] = 'execute_tool';
  }
  if (resourceUri && start.method.startsWith('resources/') && start.name !== undefined)
    attributes['mcp.resource.uri'] = start.name;
  return attributes;
}

/** The metric carries the low-cardinality attributes only (no ids, no session). */
function metricAttributes(attributes: Attributes): Attributes {
  const {
    'jsonrpc.request.id': _id,
    'mcp.session.id': _session,
    'edge_mcp.abort.reason': _reason,
    ...rest
  } = attributes;
  return rest;
}
