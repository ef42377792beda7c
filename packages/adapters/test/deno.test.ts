import { describe, expect, test } from 'vitest';
import { within } from './helpers.ts';
import { denoBinary, startFixture } from './runtime-child.ts';
import { runtimeSuite } from './runtime-suite.ts';

const deno = denoBinary();
/** Loopback (and the wildcard bind the suite checks); env only for what the adapter reads. */
const permissions = ['--allow-net=127.0.0.1,0.0.0.0', '--allow-env=PORT,HOST'];

describe('Deno adapter (real deno binary)', () => {
  runtimeSuite({
    command: deno,
    args: ['run', ...permissions, '--unstable-no-legacy-abort'],
    readsRefusedUploads: true,
  });

  test('legacy abort (no --unstable-no-legacy-abort): the extra abort comes only after the body was complete', async () => {
    const { url, line, lines } = startFixture(deno, ['run', ...permissions], 'graceful');
    const response = await within(
      fetch(`${await url()}/quick-stream?id=legacy`),
      'the streamed response',
    );
    expect(await response.text()).toBe('one two three');
    // Deno aborts request.signal after every complete response in this mode; what the core relies
    // on is that the abort never precedes the end of the body.
    await within(line('abort legacy'), 'the legacy abort');
    expect(lines.indexOf('body-done legacy')).toBeGreaterThan(-1);
    expect(lines.indexOf('body-done legacy')).toBeLessThan(lines.indexOf('abort legacy'));
  });
});
