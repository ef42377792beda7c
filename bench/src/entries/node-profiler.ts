/**
 * In-process V8 CPU profiler for Node targets (the sampler `node --cpu-prof` uses, driven through
 * `node:inspector`), so positions can be mapped back to the TypeScript sources with the source
 * maps tsx registered: a `--cpu-prof` file taken from outside would point into tsx's transpiled
 * output instead.
 */
import { writeFileSync } from 'node:fs';
import type { Profiler, Runtime } from 'node:inspector';
import { Session } from 'node:inspector/promises';
import { findSourceMap } from 'node:module';

export interface HotFunction {
  functionName: string;
  /** `path:line:column` in the original source (1-based), relative to the repository. */
  location: string;
  selfMs: number;
  selfPct: number;
}

export interface ProfileSummary {
  totalMs: number;
  functions: HotFunction[];
  files: { file: string; selfMs: number; selfPct: number }[];
}

const ROOT = new URL('../../../', import.meta.url).href;

function original(frame: Runtime.CallFrame): { file: string; line: number; column: number } {
  const map = frame.url.startsWith('file://') ? findSourceMap(frame.url) : undefined;
  const entry = map?.findEntry(frame.lineNumber, frame.columnNumber) as
    | { originalSource?: string; originalLine?: number; originalColumn?: number }
    | undefined;
  if (entry?.originalSource !== undefined) {
    return {
      file: entry.originalSource,
      line: entry.originalLine! + 1,
      column: entry.originalColumn! + 1,
    };
  }
  return {
    file: frame.url || '(native)',
    line: frame.lineNumber + 1,
    column: frame.columnNumber + 1,
  };
}

/** Self time per function and per file; rewrites the profile's frames to original positions. */
function summarize(profile: Profiler.Profile, top: number): ProfileSummary {
  const selfUs = new Map<number, number>();
  profile.samples?.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas?.[i] ?? 0));
  });
  const byFunction = new Map<string, HotFunction>();
  const byFile = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const at = original(node.callFrame);
    const file = at.file.replace(ROOT, '');
    node.callFrame.url = at.file;
    node.callFrame.lineNumber = at.line - 1;
    node.callFrame.columnNumber = at.column - 1;
    const us = selfUs.get(node.id) ?? 0;
    total += us;
    const name = node.callFrame.functionName || '(anonymous)';
    const location = at.file.startsWith('file://') ? `${file}:${at.line}:${at.column}` : file;
    const key = `${name} ${location}`;
    const entry = byFunction.get(key) ?? { functionName: name, location, selfMs: 0, selfPct: 0 };
    entry.selfMs += us / 1000;
    byFunction.set(key, entry);
    byFile.set(file, (byFile.get(file) ?? 0) + us / 1000);
  }
  const totalMs = total / 1000;
  const pct = (ms: number) => Number(((100 * ms) / totalMs).toFixed(2));
  return {
    totalMs,
    functions: [...byFunction.values()]
      .sort((a, b) => b.selfMs - a.selfMs)
      .slice(0, top)
      .map((f) => ({ ...f, selfMs: Number(f.selfMs.toFixed(1)), selfPct: pct(f.selfMs) })),
    files: [...byFile.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([file, ms]) => ({ file, selfMs: Number(ms.toFixed(1)), selfPct: pct(ms) })),
  };
}

export function createProfiler() {
  let session: Session | undefined;
  return {
    async start(): Promise<void> {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 100 });
      await session.post('Profiler.start');
    },
    /** Stops; writes the (source-mapped) .cpuprofile to `file` when given. */
    async stop(file?: string, top = 30): Promise<ProfileSummary> {
      if (!session) throw new Error('the profiler is not running');
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      session = undefined;
      const summary = summarize(profile, top);
      if (file) writeFileSync(file, JSON.stringify(profile));
      return summary;
    },
  };
}
