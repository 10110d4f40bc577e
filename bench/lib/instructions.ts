/**
 * Instruction counts under valgrind (cachegrind, no cache simulation), the deterministic measure
 * of the instruction-count sections: `node --predictable` runs one of the drivers of
 * bench/instructions/ (drive.mjs for HTTP over in-memory connections, lambda-drive.mjs for
 * Lambda handlers in-process).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './machine.js';

const run = promisify(execFile);

/** Where the drivers live; their arguments' relative paths are relative to it. */
export const DRIVER_DIR = join(ROOT, 'bench', 'instructions');

/** The instructions of one run of `node --predictable <args>` in DRIVER_DIR. */
export async function countInstructions(args: readonly string[], core?: number): Promise<number> {
  const valgrind = [
    'valgrind',
    '--tool=cachegrind',
    '--cache-sim=no',
    '--cachegrind-out-file=/dev/null',
    process.execPath,
    // V8's predictable mode (background threads off, no time-driven GC heuristics): the same run
    // counts the same instructions to within a few per request, where --single-threaded alone
    // moved them by over a thousand.
    '--predictable',
    ...args,
  ];
  const [program, ...rest] = (
    core === undefined ? valgrind : ['taskset', '-c', String(core), ...valgrind]
  ) as [string, ...string[]];
  const { stderr } = await run(program, rest, { cwd: DRIVER_DIR, maxBuffer: 64 * 1024 * 1024 });
  const refs = /I\s+refs:\s+([\d,]+)/.exec(stderr);
  if (refs === null)
    throw new Error(`no instruction count for ${args.join(' ')}: ${stderr.slice(-500)}`);
  return Number((refs[1] as string).replaceAll(',', ''));
}

/**
 * The cost of one request: the instructions of `many` requests minus those of `few`, divided
 * by the difference, which leaves start-up and warm-up out. `args(count)` builds the driver's
 * arguments for a count.
 */
export async function instructionsPerRequest(
  args: (count: number) => readonly string[],
  few: number,
  many: number,
  core?: number,
): Promise<number> {
  const small = await countInstructions(args(few), core);
  const large = await countInstructions(args(many), core);
  return Math.round((large - small) / (many - few));
}
