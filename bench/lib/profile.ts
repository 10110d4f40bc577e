/**
 * Reads V8 CPU profiles (`node --cpu-prof`) and lists where the time went, by self time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './machine.js';
import { markdownTable } from './table.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface CostLine {
  readonly name: string;
  readonly location: string;
  readonly percent: number;
}

/** The newest `.cpuprofile` in `directory`. */
export function newestProfile(directory: string): string | undefined {
  const files = readdirSync(directory)
    .filter((file) => file.endsWith('.cpuprofile'))
    .sort();
  const last = files[files.length - 1];
  return last === undefined ? undefined : join(directory, last);
}

const moduleMaps = new Map<string, Array<{ line: number; module: string }>>();

/**
 * The module a line of an esbuild bundle came from: esbuild starts each module's code with a
 * `// path/to/module.ts` comment, which is enough to name the source file in a profile.
 */
function bundledModule(path: string, line: number): string | undefined {
  let map = moduleMaps.get(path);
  if (map === undefined) {
    map = [];
    try {
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((text, index) => {
          const match = /^\/\/ ((?:src|bench|node_modules)\/\S+\.[cm]?[jt]s)$/.exec(text);
          if (match !== null) map?.push({ line: index, module: match[1] as string });
        });
    } catch {
      // A profile of a file that is gone: fall back to the bundle's own name.
    }
    moduleMaps.set(path, map);
  }
  let found: string | undefined;
  for (const entry of map) {
    if (entry.line > line) break;
    found = entry.module;
  }
  return found;
}

function shortLocation(url: string, line: number): string {
  if (url === '') return '';
  const path = url.startsWith('file://') ? new URL(url).pathname : url;
  if (path.endsWith('.mjs') && path.includes('/.build/')) {
    const module = bundledModule(path, line);
    if (module !== undefined) return module.replace(/^node_modules\//, '');
  }
  const shown = path.startsWith(ROOT) ? relative(ROOT, path) : path;
  return `${shown.replace(/^node_modules\//, '')}:${line + 1}`;
}

/** The functions with the most self time, idle time left out. */
export function topCosts(file: string, count = 12): CostLine[] {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfTime = new Map<string, { name: string; location: string; time: number }>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    if (node === undefined) return;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') return;
    const delta = profile.timeDeltas[index] ?? 0;
    total += delta;
    const name = functionName || '(anonymous)';
    const location = shortLocation(url, lineNumber);
    const key = `${name}@${location}`;
    const entry = selfTime.get(key) ?? { name, location, time: 0 };
    entry.time += delta;
    selfTime.set(key, entry);
  });
  return [...selfTime.values()]
    .sort((a, b) => b.time - a.time)
    .slice(0, count)
    .map((entry) => ({
      name: entry.name,
      location: entry.location,
      percent: total === 0 ? 0 : (100 * entry.time) / total,
    }));
}

/**
 * Self time summed by source file (native code and V8's own work by name): shows which layer
 * the time goes to when no single function dominates.
 */
export function costsByFile(file: string, count = 8): CostLine[] {
  const byFile = new Map<string, number>();
  let total = 0;
  for (const line of topCosts(file, Number.POSITIVE_INFINITY)) {
    const location = line.location.replace(/:\d+$/, '');
    const key = location === '' ? `${line.name} (native or V8)` : location;
    byFile.set(key, (byFile.get(key) ?? 0) + line.percent);
    total += line.percent;
  }
  return [...byFile.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, percent]) => ({
      name,
      location: '',
      percent: total === 0 ? 0 : (100 * percent) / total,
    }));
}

export function fileTable(lines: readonly CostLine[]): string {
  return markdownTable(
    ['Source file', 'Self time'],
    lines.map((line) => [line.name, `${line.percent.toFixed(1)}%`]),
    'lr',
  );
}

export function costTable(lines: readonly CostLine[]): string {
  return markdownTable(
    ['Function', 'Where', 'Self time'],
    lines.map((line) => [`\`${line.name}\``, line.location, `${line.percent.toFixed(1)}%`]),
    'llr',
  );
}
