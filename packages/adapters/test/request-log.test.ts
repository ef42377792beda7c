/**
 * `requestLog()` (issue 25): one JSON line per finished request, written in batches off the
 * request path; what is left goes out when the process exits.
 */
import type { RequestEvent } from '@edge-mcp/core';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { type LogOutput, requestLogTo } from '../src/shared/request-log.ts';

function output() {
  const written: string[] = [];
  const now: string[] = [];
  let exit: (() => void) | undefined;
  const out: LogOutput = {
    write: (text) => written.push(text),
    writeNow: (text) => now.push(text),
    onExit: (flush) => {
      exit = flush;
    },
  };
  return { out, written, now, exit: () => exit?.() };
}

const event = (id: number) =>
  ({ id, method: 'tools/call', outcome: 'ok' }) as unknown as RequestEvent;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('requestLog', () => {
  test('a request writes nothing itself: its line goes out with the others of its batch', () => {
    const { out, written } = output();
    const log = requestLogTo(out);
    for (let id = 1; id <= 3; id++) log(event(id));
    expect(written).toEqual([]);
    vi.advanceTimersByTime(99);
    expect(written).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(written).toHaveLength(1);
    expect(
      written[0]
        ?.split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).id),
    ).toEqual([1, 2, 3]);
    // Nothing more to write: no timer left behind.
    expect(vi.getTimerCount()).toBe(0);
  });

  test('a batch that reaches maxBufferedBytes is written at once', () => {
    const { out, written } = output();
    const log = requestLogTo(out, { maxBufferedBytes: 100 });
    log(event(1));
    expect(written).toEqual([]);
    for (let id = 2; id <= 4; id++) log(event(id));
    expect(written.length).toBeGreaterThan(0);
    expect(written.join('').length).toBeGreaterThanOrEqual(100);
  });

  test('what is gathered when the process exits is written then, synchronously', () => {
    const { out, written, now, exit } = output();
    const log = requestLogTo(out, { format: (e) => `call ${(e as unknown as { id: number }).id}` });
    log(event(7));
    exit();
    expect(now).toEqual(['call 7\n']);
    expect(written).toEqual([]);
    vi.advanceTimersByTime(1_000);
    expect(written).toEqual([]);
  });

  test('write replaces the output', () => {
    const { out, written } = output();
    const mine: string[] = [];
    const log = requestLogTo(out, { write: (text) => mine.push(text), flushMs: 10 });
    log(event(1));
    vi.advanceTimersByTime(10);
    expect(mine).toHaveLength(1);
    expect(written).toEqual([]);
  });
});
