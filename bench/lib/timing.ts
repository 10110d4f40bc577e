/**
 * In-process timing for worker scripts: run an operation for a fixed time and report its cost
 * per call in wall-clock time (`process.hrtime.bigint()`) and in CPU time.
 */

/** Operations between clock reads: reading the clock on every call would dominate fast ones. */
const BATCH = 64;

declare const gc: (() => void) | undefined;

function collectGarbage(): void {
  // Started with --expose-gc: a collection owed by the previous scenario is not billed to the next.
  if (typeof gc === 'function') gc();
}

/**
 * The cost of one operation in nanoseconds: `wall` from `process.hrtime.bigint()`, `cpu` from
 * `process.cpuUsage()` (the process's own CPU time, every thread, GC included). On a machine
 * shared with other work, wall time also counts the time the process waited for the core; CPU
 * time does not.
 */
export interface Cost {
  readonly wall: number;
  readonly cpu: number;
}

/**
 * The measurement is cut into slices and the median slice reported: a slice disturbed by
 * another process is an outlier, not a tenth of the result.
 */
const SLICES = 10;
const MIN_SLICE_MS = 20;

function sliceBudgets(durationMs: number): bigint[] {
  const count = Math.max(1, Math.min(SLICES, Math.floor(durationMs / MIN_SLICE_MS)));
  return Array.from({ length: count }, () => BigInt(Math.round((durationMs / count) * 1e6)));
}

function middle(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const half = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[half] as number)
    : ((sorted[half - 1] as number) + (sorted[half] as number)) / 2;
}

function cpuMicroseconds(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

class Slices {
  readonly wall: number[] = [];
  readonly cpu: number[] = [];

  add(calls: number, wallNs: bigint, cpuUs: number): void {
    this.wall.push(Number(wallNs) / calls);
    this.cpu.push((cpuUs * 1000) / calls);
  }

  cost(): Cost {
    return { wall: middle(this.wall), cpu: middle(this.cpu) };
  }
}

/** The cost of an async (or sync) operation, awaited one call at a time. */
export async function costPerCall(operation: () => unknown, durationMs: number): Promise<Cost> {
  collectGarbage();
  const slices = new Slices();
  for (const budget of sliceBudgets(durationMs)) {
    let calls = 0;
    const cpuStart = cpuMicroseconds();
    const start = process.hrtime.bigint();
    let elapsed = 0n;
    do {
      for (let i = 0; i < BATCH; i++) await operation();
      calls += BATCH;
      elapsed = process.hrtime.bigint() - start;
    } while (elapsed < budget);
    slices.add(calls, elapsed, cpuMicroseconds() - cpuStart);
  }
  return slices.cost();
}

/**
 * The cost of a synchronous operation; no `await`, whose own cost would swamp operations that
 * take a few hundred nanoseconds. The result of each call is kept in a sink so the compiler
 * cannot drop the call.
 */
export function costPerSyncCall(operation: () => unknown, durationMs: number): Cost {
  collectGarbage();
  const slices = new Slices();
  let sink: unknown;
  for (const budget of sliceBudgets(durationMs)) {
    let calls = 0;
    const cpuStart = cpuMicroseconds();
    const start = process.hrtime.bigint();
    let elapsed = 0n;
    do {
      for (let i = 0; i < BATCH; i++) sink = operation();
      calls += BATCH;
      elapsed = process.hrtime.bigint() - start;
    } while (elapsed < budget);
    slices.add(calls, elapsed, cpuMicroseconds() - cpuStart);
  }
  keep(sink);
  return slices.cost();
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
