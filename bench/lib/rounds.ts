/**
 * Interleaved rounds: every contender runs once per round, the order rotating from round to
 * round, so drift on a shared machine and position effects hit every contender alike.
 */
import type { SectionContext } from './context.js';
import { runWorker } from './processes.js';
import type { Measurement, Scenario } from './report.js';
import type { Cost } from './timing.js';

/** The order of `items` in round `round`: rotated by one place per round. */
export function rotation<T>(items: readonly T[], round: number): T[] {
  const shift = items.length === 0 ? 0 : round % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/** What an in-process worker prints: the cost per operation by scenario. */
export interface WorkerResult {
  readonly costs: Record<string, Cost>;
  /** Facts the worker noticed (an adapter that mutated the event, for example). */
  readonly notes?: string[];
}

/** Samples by contender, then by scenario, one per round. */
export type Samples = Map<string, Map<string, Cost[]>>;

export interface InProcessRun {
  readonly samples: Samples;
  /** First failure of each contender that failed. */
  readonly errors: Map<string, string>;
  readonly notes: Set<string>;
}

/**
 * Runs `script` once per contender per round, each in a fresh pinned process that warms up and
 * then measures for `inProcessMs` per scenario.
 */
export async function runInProcessRounds(
  context: SectionContext,
  script: string,
  contenders: readonly string[],
  extraArgs: readonly string[] | ((contender: string) => readonly string[]) = [],
): Promise<InProcessRun> {
  const { options, pinning } = context;
  const samples: Samples = new Map(contenders.map((name) => [name, new Map()]));
  const errors = new Map<string, string>();
  const notes = new Set<string>();
  const warmupMs = Math.max(100, Math.round(options.inProcessMs / 3));
  for (let round = 0; round < options.rounds; round++) {
    for (const contender of rotation(contenders, round)) {
      if (errors.has(contender)) continue;
      context.log(`round ${round + 1}/${options.rounds}: ${contender}`);
      try {
        const result = await runWorker<WorkerResult>(
          script,
          [
            contender,
            String(options.inProcessMs),
            String(warmupMs),
            ...(typeof extraArgs === 'function' ? extraArgs(contender) : extraArgs),
          ],
          { core: pinning.serverCore },
        );
        const byScenario = samples.get(contender) as Map<string, Cost[]>;
        for (const [scenario, value] of Object.entries(result.costs)) {
          const list = byScenario.get(scenario) ?? [];
          list.push(value);
          byScenario.set(scenario, list);
        }
        for (const note of result.notes ?? []) notes.add(note);
      } catch (error) {
        errors.set(contender, (error as Error).message);
        context.log(`${contender} failed: ${(error as Error).message}`);
      }
    }
  }
  return { samples, errors, notes };
}

/**
 * A scenario built from in-process costs (nanoseconds per operation) ranked by `clock`, with the
 * other clock shown beside it, converted to `unit`: `µs/…` and `ms/…` are costs (lower is
 * better), `…/s` a rate (higher is better).
 */
export function scenarioFromSamples(
  run: InProcessRun,
  name: string,
  key: string,
  contenders: readonly string[],
  subject: string,
  unit: string,
  clock: 'cpu' | 'wall',
): Scenario {
  const rate = unit.endsWith('/s');
  const convert = (nanoseconds: number): number => {
    if (rate) return 1e9 / nanoseconds;
    if (unit.startsWith('µs')) return nanoseconds / 1000;
    if (unit.startsWith('ms')) return nanoseconds / 1e6;
    return nanoseconds;
  };
  const other = clock === 'cpu' ? 'wall' : 'cpu';
  const measurements: Measurement[] = contenders.map((contender) => {
    const costs = run.samples.get(contender)?.get(key) ?? [];
    const measurement: Measurement = {
      contender,
      samples: costs.map((cost) => convert(cost[clock])),
      alternate: costs.map((cost) => convert(cost[other])),
    };
    const error = run.errors.get(contender);
    if (error !== undefined) measurement.error = error;
    return measurement;
  });
  return {
    name,
    measure: clock === 'cpu' ? 'CPU time' : 'wall-clock',
    unit,
    higherIsBetter: rate,
    subject,
    measurements,
    alternateLabel: clock === 'cpu' ? 'Wall-clock' : 'CPU time',
  };
}
