/**
 * The server the official conformance suite drives: the tools, resources and prompts its
 * scenarios name, with the payloads they check. Written for edge-mcp; names follow the suite.
 * Each group lives in its own fixture-*.ts file; this one only assembles them.
 */
import { McpServer } from '@edge-mcp/core';
import { behaviourTools } from './fixture-behaviour-tools.ts';
import { contentTools } from './fixture-content-tools.ts';
import { elicitationTools } from './fixture-elicitation-tools.ts';
import { inputTools, schemaTools } from './fixture-input-tools.ts';
import { prompts } from './fixture-prompts.ts';
import { resources } from './fixture-resources.ts';
import { skills } from './fixture-skills.ts';
import { taskTools } from './fixture-task-tools.ts';

export function createFixtureServer(): McpServer {
  const s = new McpServer({ name: 'edge-mcp-conformance-fixture', version: '0.1.0' });
  // In the order the tools were always listed: the content tools first (see there), and the
  // elicitation tools right after the behaviour tools, as when the two were one group.
  contentTools(s);
  behaviourTools(s);
  elicitationTools(s);
  inputTools(s);
  schemaTools(s);
  taskTools(s);
  resources(s);
  prompts(s);
  skills(s);
  return s;
}
