/**
 * Fixture skills (the skills extension, SEP-2640): one with subfolders, so the directory scenario
 * has a child folder to find, and two under a prefix (`refunds` is also the core README's
 * example). Bundled as strings, so the same skills serve on workerd.
 */
import type { McpServer } from '@edge-mcp/core';

const PDF_SKILL = `---
name: pdf-processing
description: Extract text from PDF files and fill in PDF forms
license: Apache-2.0
metadata:
  version: "2.1"
  owner: docs-team
---

# PDF processing

Read the form fields first; the field names are listed in [the form guide](references/FORMS.md).
`;

const FORMS = `# Form guide

Every form field has a name, a type and a page.
`;

const refunds = {
  'SKILL.md': '---\nname: refunds\ndescription: Handle refund requests\n---\nCheck the order.\n',
  'templates/email.md': 'Dear customer,\n',
};

const REPORTS_SKILL = `---
name: weekly
description: >
  Assemble the weekly report
  from the figures in data/
---

Sum the figures, then write the summary.
`;

export function skills(s: McpServer): void {
  s.skill({
    'SKILL.md': PDF_SKILL,
    'references/FORMS.md': FORMS,
    'scripts/fields.py': 'print("fields")\n',
  });
  s.skill(refunds, { prefix: 'acme/billing' });
  s.skill(
    { 'SKILL.md': REPORTS_SKILL, 'data/figures.csv': 'week,total\n1,3\n' },
    { prefix: 'reports' },
  );
}
