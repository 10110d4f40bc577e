/**
 * Result files: bench/results/<timestamp>-<section>.md, each with the date, the command, the
 * machine facts, the settings and the section's tables.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SectionContext } from './context.js';
import { machineFacts, machineTable, ROOT } from './machine.js';
import type { SectionReport } from './report.js';
import { renderSection, summaryTable, targetsTable } from './table.js';

export const RESULTS_DIR = join(ROOT, 'bench', 'results');

/** A timestamp usable in a file name: 2026-01-31T12-00-00Z. */
export function fileStamp(date: Date = new Date()): string {
  return date
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replaceAll(':', '-');
}

/** The command that reproduces this run. */
export function commandLine(): string {
  const args = process.argv.slice(2);
  return args.length === 0 ? 'npm run bench' : `npm run bench -- ${args.join(' ')}`;
}

export function settingsLines(context: SectionContext): string[] {
  const o = context.options;
  return [
    `Command: \`${commandLine()}\``,
    `Rounds: ${o.rounds}, interleaved (every contender once per round, in turn)`,
    `wrk: ${o.wrkSeconds} s per run after ${o.warmupSeconds} s of warm-up, ${o.connections} connections, 1 thread`,
    `In-process: ${o.inProcessMs} ms per contender, scenario and round, after a warm-up`,
    `Cold start: ${o.coldRuns} processes per contender and round`,
    `Pinning: ${context.pinning.description}`,
    `In-process and cold-start costs ranked by ${o.clock === 'cpu' ? "the process's CPU time (process.cpuUsage; steady when other work shares the machine), wall-clock (process.hrtime.bigint) beside it" : 'wall-clock time (process.hrtime.bigint), CPU time beside it'}; servers by wrk's requests per second`,
  ];
}

/** The whole result document of one or more sections. */
export function resultDocument(reports: readonly SectionReport[], context: SectionContext): string {
  const peers = [...new Set(reports.flatMap((report) => report.peers))];
  const title =
    reports.length === 1 ? `restmachine benchmark: ${reports[0]?.title}` : 'restmachine benchmarks';
  return [
    `# ${title}`,
    `Date: ${new Date().toISOString()}`,
    settingsLines(context)
      .map((line) => `- ${line}`)
      .join('\n'),
    machineTable(machineFacts(), peers),
    ...(reports.length > 1 ? [summary(reports)] : []),
    ...reports.map(renderSection),
    '',
  ].join('\n\n');
}

/** Writes the document and returns its path. */
export function writeResult(name: string, document: string, context: SectionContext): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${context.stamp}-${name}.md`);
  writeFileSync(file, document);
  return file;
}

/** Medians and targets of every section, for the top of a whole run's document. */
function summary(reports: readonly SectionReport[]): string {
  const parts = ['## Summary'];
  for (const report of reports) {
    if (report.scenarios.length === 0) continue;
    parts.push(`**${report.title}** (medians)`, summaryTable(report));
  }
  const targets = reports.flatMap((report) => report.targets);
  if (targets.length > 0) parts.push('**Targets**', targetsTable(targets));
  return parts.join('\n\n');
}
