/** Fixture resources: static text and binary, one to subscribe to, and a URI template. */
import type { McpServer } from '@edge-mcp/core';
import { PNG } from './fixture-parts.ts';

export function resources(s: McpServer): void {
  s.resource(
    'static-text',
    'test://static-text',
    { description: 'Static text', mimeType: 'text/plain' },
    () => 'This is the content of the static text resource.',
  );
  s.resource(
    'static-binary',
    'test://static-binary',
    { description: 'Static binary', mimeType: 'image/png' },
    () => Uint8Array.from(atob(PNG), (c) => c.charCodeAt(0)),
  );
  s.resource(
    'watched-resource',
    'test://watched-resource',
    { description: 'A resource to subscribe to', mimeType: 'text/plain' },
    () => 'Watched resource content',
  );
  s.resource(
    'example-resource',
    'test://example-resource',
    { description: 'An example resource', mimeType: 'text/plain' },
    () => 'Example resource content',
  );
  s.resourceTemplate(
    'template-data',
    'test://template/{id}/data',
    { description: 'Data by id', mimeType: 'application/json' },
    (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
  );
}
