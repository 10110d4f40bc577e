/**
 * CPU profiles of restmachine for missed targets: the same worker or server the measurement
 * used, run once more under `node --cpu-prof`, summarised by self time.
 */
import { join, relative } from 'node:path';
import type { SectionContext } from './context.js';
import { ROOT } from './machine.js';
import { runWorker } from './processes.js';
import { costsByFile, costTable, fileTable, newestProfile, topCosts } from './profile.js';

/** Profiles one in-process worker run and returns the rendered block. */
export async function profileWorker(
  context: SectionContext,
  script: string,
  label: string,
  args: readonly string[],
): Promise<string> {
  const dir = join(context.profileDir, label.replace(/[^\w.-]+/g, '-').slice(0, 80));
  await runWorker(script, args, {
    core: context.pinning.serverCore,
    nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
  });
  return describeProfile(label, dir);
}

/** The rendered top costs of the newest profile in `dir`. */
export function describeProfile(label: string, dir: string): string {
  const file = newestProfile(dir);
  if (file === undefined) return `${label}: no profile was written`;
  return [
    `${label} (\`${relative(ROOT, file)}\`):`,
    costTable(topCosts(file)),
    fileTable(costsByFile(file)),
  ].join('\n\n');
}
