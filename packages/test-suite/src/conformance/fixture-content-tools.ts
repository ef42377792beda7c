/**
 * Fixture tools whose answer is their content: text, image, audio, an embedded resource, a mix of
 * them, and a tool error, with the payloads the suite's scenarios check.
 */
import type { McpServer } from '@edge-mcp/core';
import { PNG, text, WAV } from './fixture-parts.ts';

export function contentTools(s: McpServer): void {
  // First in the list on purpose: header-validation scenarios call the first tool with no arguments.
  s.tool(
    'test_simple_text',
    { description: 'Returns simple text content' },
    () => 'This is a simple text response for testing.',
  );
  s.tool('test_image_content', { description: 'Returns image content' }, () => ({
    content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
  }));
  s.tool('test_audio_content', { description: 'Returns audio content' }, () => ({
    content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }],
  }));
  s.tool('test_embedded_resource', { description: 'Returns an embedded resource' }, () => ({
    content: [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ],
  }));
  s.tool(
    'test_multiple_content_types',
    { description: 'Returns text, image and resource content' },
    () => ({
      content: [
        text('Multiple content types test:'),
        { type: 'image', data: PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: '{"test":"data","value":123}',
          },
        },
      ],
    }),
  );
  s.tool('test_error_handling', { description: 'Always fails with a tool error' }, () => {
    throw new Error('This tool intentionally returns an error for testing');
  });
}
