/**
 * Section 3, Cold start: a fresh process that imports, constructs and answers one HTTP API 2.0
 * event, minus a bare `node` start, against Hono and Powertools (many processes, median); and
 * the minified bundled size of each subpath.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { BUILD_DIR, bundle, missingSubject } from '../lib/build.js';
import type { Section, SectionContext } from '../lib/context.js';
import { ROOT } from '../lib/machine.js';
import { describeProfile } from '../lib/profiling.js';
import { evaluateTargets, newReport, type SectionReport, type Target } from '../lib/report.js';
import { rotation } from '../lib/rounds.js';
import { median } from '../lib/stats.js';
import { ensureTool, pinned } from '../lib/system.js';
import { formatBytes, markdownTable } from '../lib/table.js';

const SCENARIO = 'Cold start: import + construct + first HTTP API 2.0 event, minus bare node';

const TARGETS: Target[] = [
  {
    label: 'Cold start at most 0.5× Hono',
    scenario: SCENARIO,
    peer: 'hono',
    comparator: 'at-most',
    bound: 0.5,
  },
];

/** Milliseconds per start of one command: wall-clock per run, CPU time (user + system). */
interface StartTimes {
  readonly wall: number[];
  /** Per run, or one mean per call when the timer only reports means. */
  readonly cpu: number[];
}

/** Times `runs` starts of each command, by command. */
type Timer = (
  commands: readonly string[][],
  runs: number,
  core: number | undefined,
) => StartTimes[];

interface HyperfineResult {
  times: number[];
  user: number;
  system: number;
}

/** hyperfine without a shell: its overhead per start is small and the same for every command. */
const hyperfineTimer: Timer = (commands, runs, core) => {
  const exportFile = join(BUILD_DIR, `hyperfine-${process.pid}.json`);
  const [command, args] = pinned(core, 'hyperfine', [
    '-N',
    '--style',
    'none',
    '--warmup',
    '1',
    '--runs',
    String(runs),
    '--export-json',
    exportFile,
    ...commands.map((argv) => argv.join(' ')),
  ]);
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`hyperfine failed: ${result.stderr.trim()}`);
  const data = JSON.parse(readFileSync(exportFile, 'utf8')) as { results: HyperfineResult[] };
  // hyperfine reports user and system time as means over the runs.
  return data.results.map((entry) => ({
    wall: entry.times.map((seconds) => seconds * 1000),
    cpu: [(entry.user + entry.system) * 1000],
  }));
};

/**
 * Fallback without hyperfine: spawn and wait, run by run, commands interleaved. Node cannot
 * read a child's CPU time, so CPU time here is the wall-clock time.
 */
const spawnTimer: Timer = (commands, runs, core) => {
  const times = commands.map((): number[] => []);
  for (let run = -1; run < runs; run++) {
    commands.forEach((argv, index) => {
      const [command, args] = pinned(core, argv[0] as string, argv.slice(1));
      const start = process.hrtime.bigint();
      const result = spawnSync(command, args, { stdio: 'ignore' });
      const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
      if (result.status !== 0) throw new Error(`${argv.join(' ')} exited with ${result.status}`);
      if (run >= 0) times[index]?.push(elapsed);
    });
  }
  return times.map((wall) => ({ wall, cpu: wall }));
};

interface Entry {
  readonly name: string;
  readonly file: string;
}

async function entries(report: SectionReport): Promise<Entry[]> {
  const names = ['restmachine', 'restmachine-core', 'hono', 'powertools', 'serverless-express'];
  const missing = missingSubject('aws');
  if (missing !== undefined) report.skipped.push(`restmachine on Lambda: ${missing}`);
  const list: Entry[] = [];
  for (const name of names) {
    if (name === 'restmachine' && missing !== undefined) continue;
    const file = await bundle(`bench/cold-start/${name}.ts`, {
      name: `cold-${name}`,
      includePackages: true,
    });
    list.push({ name, file });
  }
  return list;
}

/** Starts per timer call: small chunks interleave the contenders finely within a round. */
const CHUNK = 5;

async function coldStarts(context: SectionContext, report: SectionReport): Promise<void> {
  const list = await entries(report);
  const baseline = await bundle('bench/cold-start/baseline.ts', { name: 'cold-baseline' });
  const missingHyperfine = ensureTool('hyperfine', 'hyperfine');
  const timer = missingHyperfine === undefined ? hyperfineTimer : spawnTimer;
  if (missingHyperfine !== undefined) {
    report.notes.push(
      `${missingHyperfine}; timed with spawnSync instead (more overhead per start, same for all)`,
    );
  }
  // Each entry is checked once first: a failing first event must not pass as a fast start.
  for (const entry of list) {
    const check = spawnSync(process.execPath, [entry.file], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`${entry.name} failed: ${check.stderr.trim()}`);
  }
  const commands: Entry[] = [{ name: 'baseline', file: baseline }, ...list];
  const clock = context.options.clock;
  const samples = new Map<string, { wall: number[]; cpu: number[] }>(
    list.map((entry) => [entry.name, { wall: [], cpu: [] }]),
  );
  const bare = { wall: [] as number[], cpu: [] as number[] };
  const { rounds, coldRuns } = context.options;
  for (let round = 0; round < rounds; round++) {
    context.log(`round ${round + 1}/${rounds}: ${coldRuns} starts of each`);
    // Each chunk's starts minus the same chunk's bare starts: the baseline is taken seconds
    // apart from what it is subtracted from, so drift between chunks cancels.
    const extra = new Map(
      list.map((entry) => [entry.name, { wall: [] as number[], cpu: [] as number[] }]),
    );
    const floors = { wall: [] as number[], cpu: [] as number[] };
    for (let done = 0, chunk = 0; done < coldRuns; done += CHUNK, chunk++) {
      const order = rotation(commands, round + chunk);
      // hyperfine needs at least two runs of each command.
      const runs = Math.max(2, Math.min(CHUNK, coldRuns - done));
      const measured = timer(
        order.map((entry) => [process.execPath, entry.file]),
        runs,
        context.pinning.serverCore,
      );
      const chunkTimes = new Map(order.map((entry, index) => [entry.name, measured[index]]));
      const floorWall = median(chunkTimes.get('baseline')?.wall ?? []);
      const floorCpu = median(chunkTimes.get('baseline')?.cpu ?? []);
      floors.wall.push(floorWall);
      floors.cpu.push(floorCpu);
      for (const entry of list) {
        const own = chunkTimes.get(entry.name);
        extra.get(entry.name)?.wall.push(median(own?.wall ?? []) - floorWall);
        extra.get(entry.name)?.cpu.push(median(own?.cpu ?? []) - floorCpu);
      }
    }
    bare.wall.push(median(floors.wall));
    bare.cpu.push(median(floors.cpu));
    for (const entry of list) {
      samples.get(entry.name)?.wall.push(median(extra.get(entry.name)?.wall ?? []));
      samples.get(entry.name)?.cpu.push(median(extra.get(entry.name)?.cpu ?? []));
    }
  }
  const other = clock === 'cpu' ? 'wall' : 'cpu';
  report.scenarios.push({
    name: SCENARIO,
    unit: 'ms',
    measure: clock === 'cpu' ? 'CPU time' : 'wall-clock',
    alternateLabel: clock === 'cpu' ? 'Wall-clock' : 'CPU time',
    higherIsBetter: false,
    subject: 'restmachine',
    measurements: list.map((entry) => ({
      contender: entry.name,
      samples: samples.get(entry.name)?.[clock] ?? [],
      alternate: samples.get(entry.name)?.[other] ?? [],
    })),
  });
  report.notes.push(
    `Bare \`node\` start (subtracted): median ${median(bare.wall).toFixed(1)} ms wall-clock, ${median(bare.cpu).toFixed(1)} ms CPU time.`,
    'CPU time is user + system time of the process and all its threads (hyperfine reports it as a mean per chunk of starts), so it can exceed the wall-clock time.',
    'Each entry is bundled with esbuild (dependencies included, not minified), as Lambda deployments usually are, and run as `node entry.mjs`.',
    '`restmachine-core`: the core alone answering one `app.execute()` request (no gateway adapter).',
  );
}

const SUBPATHS: Readonly<Record<string, string>> = {
  restmachine: 'src/index.ts',
  'restmachine/node': 'src/adapters/node/index.ts',
  'restmachine/fetch': 'src/adapters/fetch/index.ts',
  'restmachine/aws': 'src/adapters/aws/index.ts',
  'restmachine/static': 'src/static/index.ts',
  'restmachine/config': 'src/config/index.ts',
};

async function minifiedSize(entry: string): Promise<{ bytes: number; gzip: number }> {
  const result = await build({
    entryPoints: [join(ROOT, entry)],
    bundle: true,
    minify: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // An optional peer loaded only for S3 locations: not part of what every user ships.
    external: ['@aws-sdk/client-s3'],
    write: false,
    logLevel: 'error',
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  return { bytes: code.length, gzip: gzipSync(code, { level: 9 }).length };
}

async function sizes(report: SectionReport): Promise<void> {
  const rows: string[][] = [];
  for (const [subpath, file] of Object.entries(SUBPATHS)) {
    if (!existsSync(join(ROOT, file))) {
      rows.push([subpath, 'n/a', 'n/a', `${file} does not exist yet`]);
      continue;
    }
    const size = await minifiedSize(file);
    rows.push([
      subpath,
      formatBytes(size.bytes),
      formatBytes(size.gzip),
      'with what it uses of the core',
    ]);
  }
  const apps: Record<string, string> = {
    'restmachine Lambda app': 'bench/lambda/contenders/restmachine.ts',
    'Hono Lambda app': 'bench/lambda/contenders/hono.ts',
    'Powertools Lambda app': 'bench/lambda/contenders/powertools.ts',
    'serverless-express + Express app': 'bench/lambda/contenders/serverless-express.ts',
  };
  for (const [name, file] of Object.entries(apps)) {
    if (name.startsWith('restmachine') && missingSubject('aws') !== undefined) continue;
    try {
      const size = await minifiedSize(file);
      rows.push([
        name,
        formatBytes(size.bytes),
        formatBytes(size.gzip),
        'the two-route app of the Lambda section',
      ]);
    } catch (error) {
      rows.push([name, 'n/a', 'n/a', (error as Error).message.split('\n')[0] ?? '']);
    }
  }
  report.extra.push(
    `**Bundle sizes** (esbuild, minified, ESM, dependencies included)\n\n${markdownTable(
      ['Entry', 'Minified', 'gzip -9', 'Note'],
      rows,
      'lrrl',
    )}`,
  );
}

async function run(context: SectionContext): Promise<SectionReport> {
  const report = newReport('cold-start', 'Cold start and bundle size', [
    'hono',
    '@aws-lambda-powertools/event-handler',
    '@codegenie/serverless-express',
    'express',
    'esbuild',
  ]);
  report.method.push(
    `Every start pinned to one core; ${context.options.coldRuns} starts per contender and round, in chunks of ${CHUNK} (one warm-up start each) with the order rotating from chunk to chunk; each chunk's median minus the same chunk's bare \`node\` median, and the median of those per round.`,
  );
  await coldStarts(context, report);
  await sizes(report);
  evaluateTargets(report, TARGETS);
  return report;
}

async function profileMissed(_report: SectionReport, context: SectionContext): Promise<string[]> {
  const file = join(BUILD_DIR, 'cold-restmachine.mjs');
  const dir = join(context.profileDir, 'cold-restmachine');
  spawnSync(process.execPath, [
    '--cpu-prof',
    '--cpu-prof-interval',
    '50',
    `--cpu-prof-dir=${dir}`,
    file,
  ]);
  return [describeProfile('cold start of restmachine on Lambda', dir)];
}

export const section: Section = {
  name: 'cold-start',
  title: 'Cold start',
  run,
  profileMissed,
};
