/**
 * The benchmark harness: `npm run bench` runs every section, `npm run bench -- <section>` one.
 * Each section measures restmachine and its peers in the same run, prints markdown tables and
 * writes them to bench/results/<timestamp>-<section>.md with the machine facts.
 */
import { join } from 'node:path';
import type { Section, SectionContext } from './lib/context.js';
import { machineFacts } from './lib/machine.js';
import { parseOptions, type SectionName, USAGE } from './lib/options.js';
import { missedTargets, type SectionReport } from './lib/report.js';
import {
  fileStamp,
  RESULTS_DIR,
  resultDocument,
  settingsLines,
  writeResult,
} from './lib/results.js';
import { cpuPinning } from './lib/system.js';
import { renderSection } from './lib/table.js';

const LOADERS: Record<SectionName, () => Promise<{ section: Section }>> = {
  core: () => import('./sections/core.js'),
  'cold-start': () => import('./sections/cold-start.js'),
  http: () => import('./sections/http.js'),
  lambda: () => import('./sections/lambda.js'),
  static: () => import('./sections/static.js'),
  config: () => import('./sections/config.js'),
  openapi: () => import('./sections/openapi.js'),
  instructions: () => import('./sections/instructions.js'),
  uploads: () => import('./sections/uploads.js'),
  compression: () => import('./sections/compression.js'),
};

function minutes(ms: number): string {
  return `${(ms / 60_000).toFixed(1)} min`;
}

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(process.argv.slice(2), process.env);
  } catch (error) {
    console.error((error as Error).message);
    console.error(USAGE);
    return 2;
  }
  if (parsed === 'help') {
    console.log(USAGE);
    return 0;
  }
  const options = parsed;
  const stamp = fileStamp();
  const context: SectionContext = {
    options,
    pinning: cpuPinning(),
    stamp,
    profileDir: join(RESULTS_DIR, 'profiles', stamp),
    log: (message) => console.log(`  · ${message}`),
  };
  const facts = machineFacts();
  console.log(`restmachine benchmarks: ${options.sections.join(', ')}`);
  console.log(
    `${facts.cpu}, ${facts.cores} cores, ${facts.memory}, Node ${facts.node}, load ${facts.load}`,
  );
  for (const line of settingsLines(context)) console.log(line);

  const started = Date.now();
  const reports: SectionReport[] = [];
  for (const name of options.sections) {
    const { section } = await LOADERS[name]();
    console.log(`\n== ${section.title} ==`);
    const sectionStart = Date.now();
    let report: SectionReport;
    try {
      report = await section.run(context);
    } catch (error) {
      // One broken section must not cost the others their results.
      console.error(`${section.title} failed: ${(error as Error).stack ?? String(error)}`);
      continue;
    }
    if (options.profile && section.profileMissed && missedTargets(report).length > 0) {
      context.log('profiling restmachine in the scenarios of missed targets');
      try {
        report.profiles.push(...(await section.profileMissed(report, context)));
      } catch (error) {
        report.notes.push(`Profiling failed: ${(error as Error).message}`);
      }
    }
    reports.push(report);
    console.log(`\n${renderSection(report)}`);
    const file = writeResult(name, resultDocument([report], context), context);
    console.log(`\n(${minutes(Date.now() - sectionStart)}; written to ${file})`);
  }
  if (reports.length > 1) {
    const file = writeResult('all', resultDocument(reports, context), context);
    console.log(`\nAll sections: ${file}`);
  }
  const missed = reports.flatMap(missedTargets);
  console.log(`\nDone in ${minutes(Date.now() - started)}; ${missed.length} target(s) missed.`);
  return 0;
}

process.exitCode = await main();
