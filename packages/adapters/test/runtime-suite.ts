/**
 * The tests every child-process runtime adapter (Deno, Bun) must pass, run against
 * test/fixtures/runtime-server.ts. No sleeps: the tests wait for the fixture's output lines and
 * for exit events, each under a timeout guard.
 */
import { connect } from 'node:net';
import { expect, test } from 'vitest';
import { DUPLICATE_SIGNAL_MS } from '../src/shared/serve.ts';
import { within } from './helpers.ts';
import { openStream, rawGet, readAll, startFixture } from './runtime-child.ts';

export interface RuntimeUnderTest {
  /** The real runtime binary. */
  command: string;
  /** Arguments before the fixture path (e.g. `run`, permission flags). */
  args: string[];
  /**
   * The runtime's server reads a refused upload to its end whatever the answer says (Deno): the
   * connection still closes after it, but the bytes are read.
   */
  readsRefusedUploads?: boolean;
  /**
   * The runtime's server closes a connection whose upload it refused at once, with the rest of the
   * upload unread (Bun): the kernel then resets it, and a reset may discard the answer before the
   * client read it. The client sees the 401 or the reset, never a silent close.
   */
  mayResetAfterRefusal?: boolean;
}

export function runtimeSuite(runtime: RuntimeUnderTest): void {
  const start = (mode: 'graceful' | 'hang' = 'graceful', env: Record<string, string> = {}) =>
    startFixture(runtime.command, runtime.args, mode, env);

  test('listens on PORT/HOST from the environment and serves a JSON round trip', async () => {
    const { url } = start();
    const base = await url();
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const response = await within(
      fetch(`${base}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { text: 'héllo' } }),
      }),
      'the echo response',
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      method: 'POST',
      body: { jsonrpc: '2.0', id: 1, method: 'ping', params: { text: 'héllo' } },
    });
  });

  test('HOST=0.0.0.0: the URL says all interfaces, a loopback URL reaches it, one warning on stderr', async () => {
    const { url, line, errLine, stderr } = start('graceful', { HOST: '0.0.0.0' });
    const local = await url();
    const port = new URL(local).port;
    expect(local).toBe(`http://127.0.0.1:${port}`);
    expect(await within(line('bound '), 'the bound line')).toBe(
      `bound http://0.0.0.0:${port} exposed`,
    );
    const warning = await within(errLine('[edge-mcp]'), 'the exposure warning');
    expect(warning).toContain(`listening on all interfaces (http://0.0.0.0:${port})`);
    const response = await within(fetch(`${local}/quick?id=wild`), 'an answer via loopback');
    expect(await response.text()).toBe('quick wild');
    expect(stderr().split('[edge-mcp]')).toHaveLength(2); // once
  });

  test('HOST=127.0.0.1: no warning', async () => {
    const { url, line, stderr } = start();
    const local = await url();
    expect(await within(line('bound '), 'the bound line')).toBe(`bound ${local} loopback`);
    // The warning would come before onListen's lines; give stderr the same request round trip.
    await (await within(fetch(`${local}/quick?id=calm`), 'an answer')).text();
    expect(stderr()).not.toContain('[edge-mcp]');
  });

  test("a 413 mid-upload reaches Node's fetch still sending its body (no EPIPE or reset first)", async () => {
    const { url } = start();
    const base = await url();
    // 8 MiB, refused after 1 MiB: the answer comes while the client is still writing.
    const body = new Uint8Array(8 * 1024 * 1024).fill(120);
    const outcomes: string[] = [];
    for (let i = 0; i < 10; i++) {
      try {
        const response = await within(
          fetch(`${base}/limited`, { method: 'POST', body }),
          `upload ${i} to be answered`,
          30_000,
        );
        outcomes.push(`${response.status} ${await response.text()}`);
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause;
        outcomes.push(`failed: ${cause?.code ?? String(error)}`);
      }
    }
    expect(outcomes).toEqual(Array(10).fill('413 {"error":"too large"}'));
  });

  test('a refusal before the body is read closes the connection; the rest of the upload is not read where the runtime allows', async () => {
    const { url } = start();
    const { hostname, port } = new URL(await url());
    const socket = connect(Number(port), hostname);
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    // The reset shows as ECONNRESET on a read, or EPIPE on the next write, whichever comes first.
    let reset = false;
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') reset = true;
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const total = 32 * 1024 * 1024;
    socket.write(`POST /refuse HTTP/1.1\r\nHost: ${hostname}\r\nContent-Length: ${total}\r\n\r\n`);
    const data = Buffer.alloc(64 * 1024, 120);
    let written = 0;
    const pump = (): void => {
      while (!socket.destroyed && written < total) {
        written += data.length;
        if (!socket.write(data)) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    pump();
    await within(closed, 'the server to close the connection', 30_000);
    const answer = Buffer.concat(received).toString('latin1');
    if (answer === '' && runtime.mayResetAfterRefusal) expect(reset).toBe(true);
    else {
      expect(answer).toMatch(/^HTTP\/1\.1 401 /);
      expect(answer.toLowerCase()).toContain('connection: close');
    }
    if (!runtime.readsRefusedUploads) expect(written).toBeLessThan(total);
  });

  test('a handler that throws gets a JSON-RPC 500 and is reported', async () => {
    const { url, line } = start();
    const response = await within(fetch(`${await url()}/throw`), 'the error response');
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32603, message: 'Internal error' },
    });
    await within(line('error handler failed'), 'the error report');
  });

  test('a client disconnect aborts request.signal; completed responses do not', async () => {
    const { url, line, lines } = start();
    const base = await url();
    // Two complete exchanges first: a plain body and a streamed one, both read to the end.
    const quick = await within(fetch(`${base}/quick?id=q1`), 'the quick response');
    expect(await quick.text()).toBe('quick q1');
    const streamed = await within(fetch(`${base}/quick-stream?id=q2`), 'the streamed response');
    expect(await streamed.text()).toBe('one two three');

    // Then a client that leaves while its handler is still waiting.
    const socket = rawGet(base, '/wait?id=gone');
    await within(line('start gone'), 'the waiting handler to start');
    socket.destroy();
    await within(line('abort gone'), 'request.signal to abort on the disconnect');

    // The completed exchanges ended long before the disconnect was even noticed; an abort of
    // their signals (Deno's legacy behaviour) would have been printed by now.
    expect(lines).toContain('start q1');
    expect(lines).toContain('start q2');
    expect(lines).not.toContain('abort q1');
    expect(lines).not.toContain('abort q2');
  });

  test('an event stream with nothing to send yet shows its headers at once; its events follow', async () => {
    const { url } = start();
    const base = await url();
    // Bun sends a streamed response's head with its first chunk: without the adapter's opening
    // comment these headers would wait until something is sent.
    const response = await within(fetch(`${base}/quiet?id=quiet`), 'the quiet stream headers');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error('no body');
    await within(fetch(`${base}/release`), 'the release');
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('data: late\n\n')) {
      const { done, value } = await within(reader.read(), 'the late event');
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    // Whatever came before the event is SSE comments, which clients skip.
    expect(text.replace(/^:[^\n]*\n\n/gm, '')).toBe('data: late\n\n');
    await reader.cancel();
  });

  test('SIGTERM with an open event stream: close() ends it and the process exits with 0', async () => {
    const { child, exited, url, lines } = start();
    const reader = await openStream(await url());

    child.kill('SIGTERM');
    expect(await within(exited, 'the child to exit', 10_000)).toEqual({ code: 0, signal: null });
    expect(lines).toContain('closing');
    // The stream got its last event and a clean end, not a cut connection.
    expect(await within(readAll(reader), 'the end of the stream')).toBe('data: bye\n\n');
  });

  test('the same SIGTERM twice at once (a process group and pnpm passing it on) shuts down gracefully, exit 0', async () => {
    const { child, exited, url, lines } = start();
    const reader = await openStream(await url());

    child.kill('SIGTERM');
    child.kill('SIGTERM');
    expect(await within(exited, 'the child to exit', 10_000)).toEqual({ code: 0, signal: null });
    expect(lines).toContain('closing');
    expect(await within(readAll(reader), 'the end of the stream')).toBe('data: bye\n\n');
  });

  test('a second SIGINT during a stuck shutdown exits at once with 130', async () => {
    const { child, exited, url, line } = start('hang');
    await openStream(await url());

    child.kill('SIGINT');
    await within(line('closing'), 'the shutdown to start');
    // A second press, not the same signal passed on again: it comes after the duplicate window.
    await new Promise((resolve) => setTimeout(resolve, DUPLICATE_SIGNAL_MS + 100));
    child.kill('SIGINT');
    expect(await within(exited, 'the child to exit', 10_000)).toEqual({ code: 130, signal: null });
  });

  test('SIGTERM during a stuck SIGINT shutdown exits at once with 143', async () => {
    const { child, exited, url, line } = start('hang');
    await openStream(await url());

    child.kill('SIGINT');
    await within(line('closing'), 'the shutdown to start');
    child.kill('SIGTERM');
    expect(await within(exited, 'the child to exit', 10_000)).toEqual({ code: 143, signal: null });
  });
}
