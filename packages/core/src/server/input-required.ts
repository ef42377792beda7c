import type { JsonObject } from '../protocol/jsonrpc.ts';

/**
 * Thrown by `ctx.input()` when answers are missing (2026-07-28): not an error, the way a round
 * ends; the modern dispatcher turns it into an input-required result.
 */
export class InputRequired {
  readonly requests: JsonObject;
  constructor(requests: JsonObject) {
    this.requests = requests;
  }
}
