/**
 * What a section produces: scenarios with every contender's per-round samples, the targets of
 * the issue checked against them, and notes. Rendering lives in table.ts.
 */
import { pairedRatio, roundRatios, type Summary, summarize } from './stats.js';

/** One contender's samples in one scenario, one per round (in round order). */
export interface Measurement {
  readonly contender: string;
  readonly samples: number[];
  /** Why this contender has no (or fewer) samples, when it failed. */
  error?: string;
  /** The same rounds measured another way (wall-clock beside CPU time), shown for reference. */
  alternate?: number[];
}

/** One thing measured for several contenders in the same run. */
export interface Scenario {
  readonly name: string;
  /** Unit of the samples, such as `req/s` or `µs/event`. */
  readonly unit: string;
  /** Throughput (req/s, MB/s) is better high; costs (time per event) are better low. */
  readonly higherIsBetter: boolean;
  /** The contender the ratios are about (restmachine's entry). */
  readonly subject: string;
  readonly measurements: Measurement[];
  /** How the samples were measured, when it needs saying (`CPU time`). */
  readonly measure?: string;
  /** What `Measurement.alternate` holds, such as `wall-clock`. */
  readonly alternateLabel?: string;
}

/** A speed target from the issue: a ratio of the subject to a peer in one scenario. */
export interface Target {
  readonly label: string;
  readonly scenario: string;
  /** Defaults to the scenario's subject. */
  readonly subject?: string;
  readonly peer: string;
  /** `at-least`: ratio >= bound; `at-most`: ratio <= bound; `within`: |ratio - 1| < bound. */
  readonly comparator: 'at-least' | 'at-most' | 'within';
  readonly bound: number;
}

export interface TargetResult extends Target {
  /** The median of the per-round ratios (or the ratio of medians when rounds do not pair). */
  readonly ratio: number;
  /** Undefined when either side could not be measured. */
  readonly met: boolean | undefined;
  /** The ratio in each round, in round order; empty when the rounds do not pair. */
  readonly rounds: readonly number[];
  /** How many of `rounds` meet the target on their own. */
  readonly roundsMet: number;
}

export interface SectionReport {
  readonly section: string;
  readonly title: string;
  /** How the section was measured, printed above its tables. */
  readonly method: string[];
  readonly scenarios: Scenario[];
  readonly targets: TargetResult[];
  /** Extra markdown tables (bundle sizes, event mutation), already rendered. */
  readonly extra: string[];
  readonly notes: string[];
  /** Parts that did not run, each with its reason. */
  readonly skipped: string[];
  /** CPU profiles of restmachine for missed targets, already rendered. */
  readonly profiles: string[];
  /** Peer packages whose versions the result file lists. */
  readonly peers: string[];
}

export function newReport(section: string, title: string, peers: string[] = []): SectionReport {
  return {
    section,
    title,
    method: [],
    scenarios: [],
    targets: [],
    extra: [],
    notes: [],
    skipped: [],
    profiles: [],
    peers,
  };
}

export function findMeasurement(
  scenario: Scenario | undefined,
  contender: string,
): Measurement | undefined {
  return scenario?.measurements.find((m) => m.contender === contender);
}

export function summaryOf(measurement: Measurement | undefined): Summary | undefined {
  if (measurement === undefined || measurement.samples.length === 0) return undefined;
  return summarize(measurement.samples);
}

/** Checks each target against the report's scenarios. */
export function evaluateTargets(report: SectionReport, targets: readonly Target[]): void {
  for (const target of targets) {
    const scenario = report.scenarios.find((s) => s.name === target.scenario);
    const subject = findMeasurement(scenario, target.subject ?? scenario?.subject ?? '');
    const peer = findMeasurement(scenario, target.peer);
    const measured = subject && peer && subject.samples.length > 0 && peer.samples.length > 0;
    const ratio = measured ? pairedRatio(subject.samples, peer.samples) : Number.NaN;
    const rounds = measured ? roundRatios(subject.samples, peer.samples) : [];
    const met = Number.isFinite(ratio) ? meets(target, ratio) : undefined;
    const roundsMet = rounds.filter((value) => meets(target, value)).length;
    report.targets.push({ ...target, ratio, met, rounds, roundsMet });
  }
}

function meets(target: Target, ratio: number): boolean {
  if (target.comparator === 'at-least') return ratio >= target.bound;
  if (target.comparator === 'at-most') return ratio <= target.bound;
  return Math.abs(ratio - 1) < target.bound;
}

/** Targets that were measured and missed. */
export function missedTargets(report: SectionReport): TargetResult[] {
  return report.targets.filter((target) => target.met === false);
}
