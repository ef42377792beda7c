/** The port a start-up bundle listens on, on any runtime (Deno has no `process` of its own). */
declare const Deno: { env: { get(name: string): string | undefined } } | undefined;

export function port(): number {
  const value = typeof Deno === 'undefined' ? process.env.PORT : Deno.env.get('PORT');
  return Number(value);
}

export const HOSTNAME = '127.0.0.1';
