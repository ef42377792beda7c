/**
 * Server-Sent Events parsing (the WHATWG event-stream format): lines end in LF, CRLF or CR;
 * `data` lines join with LF; one leading space after the colon is dropped; comment lines (`:`)
 * and unknown fields are ignored.
 *
 * One deliberate difference from a browser: an event with an `id` but no `data` line is still
 * yielded, and a priming event (an id and one empty `data:` line) is yielded with `data: ''`, so
 * tests can see the ids a resuming client would. A block with neither (a keep-alive comment, a bare
 * `retry`) yields nothing.
 */

export interface SseEvent {
  id?: string;
  /** The `event` field (its type); absent for the default `message`. */
  event?: string;
  /** The `data` lines joined with LF; `''` when there were none. */
  data: string;
  retry?: number;
}

interface Draft {
  id?: string;
  event?: string;
  data?: string[];
  retry?: number;
}

/** One line and its end; a CR at the end of the buffer may be the first half of a CRLF, so wait. */
const LINE = /([^\r\n]*)(?:\r\n|\n|\r(?=[^\n]))/y;

/** Incremental parser: feed it decoded text as it arrives, take the complete events. */
export class SseParser {
  #buffer = '';
  #draft: Draft = {};

  /** Parses `text` after what came before; returns the events it completed. */
  push(text: string): SseEvent[] {
    this.#buffer += text;
    const events: SseEvent[] = [];
    let consumed = 0;
    LINE.lastIndex = 0;
    for (let match = LINE.exec(this.#buffer); match; match = LINE.exec(this.#buffer)) {
      consumed = LINE.lastIndex;
      const event = this.#line(match[1] as string);
      if (event) events.push(event);
    }
    this.#buffer = this.#buffer.slice(consumed);
    return events;
  }

  /**
   * The end of the stream: a final CR ends its line, and an event not closed by a blank line is
   * dropped, as the format says.
   */
  end(): SseEvent[] {
    const events = this.#buffer.endsWith('\r') ? this.push('\n') : [];
    this.#buffer = '';
    this.#draft = {};
    return events;
  }

  #line(line: string): SseEvent | undefined {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    const draft = this.#draft;
    if (field === 'data') {
      draft.data ??= [];
      draft.data.push(value);
    } else if (field === 'id' && !value.includes('\0')) draft.id = value;
    else if (field === 'event') draft.event = value;
    else if (field === 'retry' && /^\d+$/.test(value)) draft.retry = Number(value);
    return undefined;
  }

  #dispatch(): SseEvent | undefined {
    const { id, event, data, retry } = this.#draft;
    this.#draft = {};
    if (data === undefined && id === undefined) return undefined;
    const out: SseEvent = { data: data?.join('\n') ?? '' };
    if (id !== undefined) out.id = id;
    if (event !== undefined) out.event = event;
    if (retry !== undefined) out.retry = retry;
    return out;
  }
}

/** Every complete event of a whole SSE text. */
export function parseSse(text: string): SseEvent[] {
  const parser = new SseParser();
  return [...parser.push(text), ...parser.end()];
}

/** The JSON-RPC messages of a whole SSE text, parsed (events without data skipped). */
export function sseMessages(text: string): Array<Record<string, any>> {
  return parseSse(text)
    .filter((event) => event.data.trim() !== '')
    .map((event) => JSON.parse(event.data));
}
