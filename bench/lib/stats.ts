/**
 * Small statistics for benchmark samples: medians, spread, and ratios taken round by round so
 * that drift during a run (other load on a shared machine) cancels out of the comparison.
 */

/** The median of `values` (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The `q` quantile (0..1) by linear interpolation between closest ranks. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * Math.min(1, Math.max(0, q));
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const low = sorted[lower] as number;
  return low + ((sorted[upper] as number) - low) * (position - lower);
}

/** Median and spread of one contender's samples. */
export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** Interquartile range: reported when there are enough samples for it to mean something. */
  readonly q1: number;
  readonly q3: number;
  readonly count: number;
}

export function summarize(values: readonly number[]): Summary {
  return {
    median: median(values),
    min: values.length === 0 ? Number.NaN : Math.min(...values),
    max: values.length === 0 ? Number.NaN : Math.max(...values),
    q1: quantile(values, 0.25),
    q3: quantile(values, 0.75),
    count: values.length,
  };
}

/**
 * The ratio `subject / peer`, as the median of the per-round ratios when both have a sample
 * for the same rounds (paired, so slow periods hit both sides), else the ratio of medians.
 */
export function pairedRatio(subject: readonly number[], peer: readonly number[]): number {
  if (subject.length === 0 || peer.length === 0) return Number.NaN;
  const rounds = roundRatios(subject, peer);
  return rounds.length > 0 ? median(rounds) : median(subject) / median(peer);
}

/**
 * The ratio `subject / peer` in each round, when both sides have one sample per round; empty
 * when they cannot be paired. Their spread shows whether a ratio's distance from a bound is
 * larger than the run's own noise.
 */
export function roundRatios(subject: readonly number[], peer: readonly number[]): number[] {
  if (subject.length === 0 || subject.length !== peer.length) return [];
  return subject.map((value, index) => value / (peer[index] as number));
}
