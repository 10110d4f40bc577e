/**
 * In-process timing for worker scripts: run an operation for a fixed time and report the mean
 * cost per operation, measured with `process.hrtime.bigint()`.
 */

/** Operations between clock reads: reading the clock on every call would dominate fast ones. */
const BATCH = 64;

declare const gc: (() => void) | undefined;

function collectGarbage(): void {
  // Started with --expose-gc: a collection owed by the previous scenario is not billed to the next.
  if (typeof gc === 'function') gc();
}

/** Nanoseconds per call of an async (or sync) operation, awaited one at a time. */
export async function nanosecondsPerCall(
  operation: () => unknown,
  durationMs: number,
): Promise<number> {
  collectGarbage();
  const budget = BigInt(Math.round(durationMs * 1e6));
  let calls = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0n;
  do {
    for (let i = 0; i < BATCH; i++) await operation();
    calls += BATCH;
    elapsed = process.hrtime.bigint() - start;
  } while (elapsed < budget);
  return Number(elapsed) / calls;
}

/**
 * Nanoseconds per call of a synchronous operation; no `await`, whose own cost would swamp
 * operations that take a few hundred nanoseconds. The result of each call is kept in a sink so
 * the compiler cannot drop the call.
 */
export function nanosecondsPerSyncCall(operation: () => unknown, durationMs: number): number {
  collectGarbage();
  const budget = BigInt(Math.round(durationMs * 1e6));
  let calls = 0;
  let sink: unknown;
  const start = process.hrtime.bigint();
  let elapsed = 0n;
  do {
    for (let i = 0; i < BATCH; i++) sink = operation();
    calls += BATCH;
    elapsed = process.hrtime.bigint() - start;
  } while (elapsed < budget);
  keep(sink);
  return Number(elapsed) / calls;
}

let kept: unknown;
function keep(value: unknown): void {
  kept = value;
}

/** Read by nobody; exported so bundlers keep the sink alive. */
export function lastKept(): unknown {
  return kept;
}

/** Arguments of a worker: `<contender> <durationMs> <warmupMs> [extra...]`. */
export interface WorkerArgs {
  readonly contender: string;
  readonly durationMs: number;
  readonly warmupMs: number;
  readonly extra: string[];
}

export function workerArgs(argv: readonly string[] = process.argv.slice(2)): WorkerArgs {
  const [contender, duration, warmup, ...extra] = argv;
  if (contender === undefined) throw new Error('worker needs a contender name');
  return {
    contender,
    durationMs: Number(duration ?? 1000),
    warmupMs: Number(warmup ?? 200),
    extra,
  };
}

/** Prints the worker's result as the last line of stdout (the harness parses it). */
export function report(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
