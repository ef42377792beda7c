/**
 * A skill entry's `frontmatter` must be identical in content to the `SKILL.md` front matter as a
 * host parses it (SEP-2640). Each front matter below is served through `server.skill()` and its
 * entry compared with what the `yaml` package makes of the same text: the YAML reader the
 * conformance suite checks entries with (resolved from the installed suite).
 */
import { createRequire } from 'node:module';
import { createMcpHandler, McpServer } from '@edge-mcp/core';
import { modernRequest, readAnswer } from '@edge-mcp/test-kit';
import { expect, test } from 'vitest';

const fromHere = createRequire(import.meta.url);
const fromSuite = createRequire(fromHere.resolve('@modelcontextprotocol/conformance/package.json'));
const { parse } = fromSuite('yaml') as { parse(text: string): unknown };

const FRONT_MATTERS = [
  'name: plain\ndescription: A plain description',
  "name: quoted\ndescription: 'It''s quoted: with a colon'\nlicense: \"MIT\"",
  'name: typed\ndescription: d\nversion: 2.10\ncount: 007\nhex: 0xff\noctal: 0o17\nexp: 1e3\nneg: -4\nyes: yes\non: true\noff: FALSE\nnothing: ~\nblank:',
  'name: nested\ndescription: d\nmetadata:\n  author: docs-team\n  version: "1.0"\n  deep:\n    deeper:\n      value: 1',
  'name: lists\ndescription: d\ntags:\n  - pdf\n  - "forms"\n  - 3\nsame:\n- a\n- b\nflow: [x, "y z", 4, true]\nempty: []',
  'name: blocks\ndescription: >\n  Folded text\n  over lines\n\n  and a paragraph\nliteral: |\n  keep\n    indent\n  lines\nstrip: |-\n  no end\nkeep: |+\n  kept\n\nafter: 1',
  'name: plain-multi\ndescription: a long plain\n  value over\n\n  lines\nurl: https://example.com/a#b\ncomment: value # trailing',
  '# leading comment\nname: comments\n\ndescription: "esc \\t \\u00e9 \\x41 \\\\ \\" \\/"\n# trailing comment',
  'name: allowed-tools\ndescription: d\nallowed-tools: Bash(git:*) Read\ncompatibility: Needs git 2.40+',
];

test.each(FRONT_MATTERS.map((text) => [text.split('\n')[0] as string, text]))(
  'the entry of "%s" is what yaml parses',
  async (_name, text) => {
    const s = new McpServer({ name: 'front-matter', version: '1' });
    s.skill({ 'SKILL.md': `---\n${text}\n---\n\nBody\n` });
    const handler = createMcpHandler(s);
    const { message } = await readAnswer(await handler.fetch(modernRequest('skills/list', {})));
    expect(message.result.skills[0].frontmatter).toEqual(parse(text));
    await handler.close();
  },
);
