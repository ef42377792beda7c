/**
 * The bare ceiling: what a `tools/call` echo answer costs without any MCP library. Parses the
 * JSON-RPC body and answers the same shape edge-mcp's modern echo result has.
 */

const META = { 'io.modelcontextprotocol/serverInfo': { name: 'bench', version: '1.0.0' } };

export function bareResult(body: string): string {
  const message = JSON.parse(body) as {
    id?: string | number;
    params?: { arguments?: { text?: string } };
  };
  return JSON.stringify({
    jsonrpc: '2.0',
    id: message.id ?? null,
    result: {
      content: [{ type: 'text', text: message.params?.arguments?.text ?? '' }],
      resultType: 'complete',
      _meta: META,
    },
  });
}

/** The same as a Web handler, for `Deno.serve` and `Bun.serve`. */
export async function bareFetch(request: Request): Promise<Response> {
  return new Response(bareResult(await request.text()), {
    headers: { 'content-type': 'application/json' },
  });
}
