/**
 * What every section receives from the harness, and what it gives back.
 */
import type { BenchOptions, SectionName } from './options.js';
import type { SectionReport } from './report.js';
import type { Pinning } from './system.js';

export interface SectionContext {
  readonly options: BenchOptions;
  readonly pinning: Pinning;
  /** The run's timestamp, shared by every result file of the run. */
  readonly stamp: string;
  /** Folder for this run's CPU profiles. */
  readonly profileDir: string;
  /** Progress output (one line per step). */
  log(message: string): void;
}

export interface Section {
  readonly name: SectionName;
  readonly title: string;
  run(context: SectionContext): Promise<SectionReport>;
  /**
   * Profiles restmachine in the scenarios of the missed targets and returns notes with the
   * top costs (self time).
   */
  profileMissed?(report: SectionReport, context: SectionContext): Promise<string[]>;
}
