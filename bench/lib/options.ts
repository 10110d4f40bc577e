/**
 * Command-line and environment settings of the benchmark run. Defaults keep `npm run bench`
 * under 30 minutes on a 2-core machine; `--long` (or the variables) buys steadier numbers.
 */

/** Every section, in the order a full run takes them. */
export const SECTION_NAMES = [
  'core',
  'cold-start',
  'http',
  'lambda',
  'static',
  'config',
  'openapi',
  'instructions',
  'uploads',
  'compression',
] as const;
export type SectionName = (typeof SECTION_NAMES)[number];

const ALIASES: Readonly<Record<string, SectionName>> = {
  cold: 'cold-start',
  coldstart: 'cold-start',
  servers: 'http',
  aws: 'lambda',
  files: 'static',
  configuration: 'config',
  valgrind: 'instructions',
  upload: 'uploads',
  multipart: 'uploads',
  gzip: 'compression',
};

export interface BenchOptions {
  /** Sections to run, in run order. */
  readonly sections: readonly SectionName[];
  /** Rounds per contender; rounds interleave the contenders. */
  readonly rounds: number;
  /** Seconds of load per wrk run. */
  readonly wrkSeconds: number;
  /** Seconds of warm-up load before each measured wrk run of a freshly started server. */
  readonly warmupSeconds: number;
  /** Milliseconds of measurement per contender, scenario and round, in-process. */
  readonly inProcessMs: number;
  /** Processes per contender and round for cold starts. */
  readonly coldRuns: number;
  /** wrk connections for small responses (the 10 MB file uses fewer). */
  readonly connections: number;
  /** Take a CPU profile of restmachine for every missed target. */
  readonly profile: boolean;
  /**
   * What in-process and cold-start costs are ranked by: the process's CPU time (`cpu`, the
   * default: steady on a machine shared with other work) or wall-clock time (`wall`). Both are
   * printed.
   */
  readonly clock: 'cpu' | 'wall';
}

export const USAGE = `Usage: npm run bench -- [section ...] [options]

Sections: ${SECTION_NAMES.join(', ')} (default: all, in that order)

Options (each also an environment variable):
  --rounds N        rounds per contender, interleaved (BENCH_ROUNDS, default 3, at least 3)
  --duration S      whole seconds of wrk load per run (BENCH_DURATION, default 5)
  --warmup S        seconds of wrk warm-up per scenario and server start (BENCH_WARMUP, default 2)
  --time MS         in-process milliseconds per contender and round (BENCH_TIME_MS, default 1000)
  --cold-runs N     processes per contender and round for cold starts (BENCH_COLD_RUNS, default 20)
  --connections N   wrk connections (BENCH_CONNECTIONS, default 50)
  --quick           short runs for checking the harness (1 s wrk, 200 ms in-process)
  --long            steadier numbers (15 s wrk, 3 s in-process, 5 rounds, 40 cold runs)
  --clock C         rank in-process and cold-start costs by cpu (default) or wall time (BENCH_CLOCK)
  --no-profile      skip the CPU profiles of missed targets (BENCH_PROFILE=0)
  --help            this text`;

const VALUE_OPTIONS = [
  '--rounds',
  '--duration',
  '--warmup',
  '--time',
  '--cold-runs',
  '--connections',
];

function positiveNumber(name: string, text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`${name} must be a positive number, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** Parses `argv` (after the script name) and the BENCH_* variables. */
export function parseOptions(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): BenchOptions | 'help' {
  const sections: SectionName[] = [];
  const flags = new Map<string, string | undefined>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '--quick' || arg === '--long' || arg === '--no-profile') {
      flags.set(arg, 'true');
    } else if (arg.startsWith('--')) {
      const [name, inline] = arg.split('=', 2) as [string, string | undefined];
      if (!VALUE_OPTIONS.includes(name)) throw new Error(`Unknown option ${name}`);
      const value = inline ?? argv[++i];
      if (value === undefined) throw new Error(`${name} needs a value`);
      flags.set(name, value);
    } else {
      const name = (ALIASES[arg] ?? arg) as SectionName;
      if (!SECTION_NAMES.includes(name)) {
        throw new Error(
          `Unknown section ${JSON.stringify(arg)}; known: ${SECTION_NAMES.join(', ')}`,
        );
      }
      if (!sections.includes(name)) sections.push(name);
    }
  }
  const quick = flags.has('--quick') || env.BENCH_QUICK === '1';
  const long = flags.has('--long') || env.BENCH_LONG === '1';
  const preset = quick
    ? { rounds: 3, wrk: 1, warmup: 1, time: 200, cold: 10 }
    : long
      ? { rounds: 5, wrk: 15, warmup: 3, time: 3000, cold: 40 }
      : { rounds: 3, wrk: 5, warmup: 2, time: 1000, cold: 20 };
  const pick = (flag: string, variable: string, fallback: number): number =>
    positiveNumber(flag, flags.get(flag)) ?? positiveNumber(variable, env[variable]) ?? fallback;
  const rounds = Math.round(pick('--rounds', 'BENCH_ROUNDS', preset.rounds));
  if (rounds < 3) throw new Error('--rounds must be at least 3 (medians need three runs)');
  const clock = flags.get('--clock') ?? env.BENCH_CLOCK ?? 'cpu';
  if (clock !== 'cpu' && clock !== 'wall') {
    throw new Error(`--clock must be cpu or wall, got ${JSON.stringify(clock)}`);
  }
  // Run order follows SECTION_NAMES whatever order the sections were named in.
  const chosen = sections.length === 0 ? [...SECTION_NAMES] : sections;
  return {
    sections: SECTION_NAMES.filter((name) => chosen.includes(name)),
    rounds,
    wrkSeconds: pick('--duration', 'BENCH_DURATION', preset.wrk),
    warmupSeconds: pick('--warmup', 'BENCH_WARMUP', preset.warmup),
    inProcessMs: pick('--time', 'BENCH_TIME_MS', preset.time),
    coldRuns: Math.round(pick('--cold-runs', 'BENCH_COLD_RUNS', preset.cold)),
    connections: Math.round(pick('--connections', 'BENCH_CONNECTIONS', 50)),
    profile: !flags.has('--no-profile') && env.BENCH_PROFILE !== '0',
    clock,
  };
}
