import { type Child, startChild } from '@edge-mcp/test-kit/node';

/**
 * A server started from the consumer project (the test kit's child: stdout line by line, `stop()`
 * with SIGTERM, then SIGKILL after 5 s, to its whole process group).
 */
export type ServerProcess = Child;

/**
 * Spawns `command` in its own process group, so wrappers and children go with it, and resolves
 * once it prints a line `ready` accepts. Rejects if the process exits first (its stderr is in the
 * error), and then leaves nothing running.
 */
export async function startServer(
  command: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
  ready: (line: string) => boolean,
): Promise<ServerProcess> {
  const server = startChild(command, [...args], { cwd, env, detached: true });
  try {
    await server.line(ready, 'its ready line');
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}
