/**
 * Section 7, Instructions: the deterministic targets. Every contender runs under valgrind
 * (cachegrind, no cache simulation) over in-memory connections (HTTP) or in-process calls
 * (Lambda), once for a small and once for a large count; the difference divided by the
 * difference in counts is the cost of one request, start-up and warm-up left out. The same
 * numbers come out of `bash bench/instructions.sh` and `bash bench/instructions/lambda.sh`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Section, SectionContext } from '../lib/context.js';
import { DRIVER_DIR, instructionsPerRequest } from '../lib/instructions.js';
import { evaluateTargets, newReport, type SectionReport, type Target } from '../lib/report.js';
import { median } from '../lib/stats.js';

const SMALL = 5_000;
const LARGE = 25_000;
// A framework's count of the same build moves between runs (Fastify's `GET /` by 2,300
// instructions over ten counts, bench/RESULTS.md), raw node:http's by under 250: the frameworks
// of the node scenarios (target 1) are counted this many times and judged on the median.
const FRAMEWORK_SAMPLES = 3;

interface Job {
  scenario: string;
  contender: string;
  /** node's arguments after `--predictable`, the count last. */
  args: (count: number) => string[];
  /** How many times the job is counted. */
  samples: number;
}

async function perRequest(job: Job): Promise<number> {
  return instructionsPerRequest(job.args, SMALL, LARGE);
}

const HTTP_SCENARIOS = {
  'GET /': '/',
  'GET /users/{id}/posts/{postId} (100 decoys)': '/users/123/posts/456',
  'POST /echo (1 KB JSON)': 'POST',
  'Notes: POST /notes (zod, CORS, bearer)': 'notes-post',
  'Notes: GET /notes/{id} (ETag, CORS, bearer)': 'notes-get',
  'Lambda REST 1.0 GET': 'rest-get',
  'Lambda REST 1.0 POST (1 KB JSON)': 'rest-post',
  'Lambda HTTP API 2.0 GET': 'http-get',
  'Lambda HTTP API 2.0 POST (1 KB JSON)': 'http-post',
} as const;
type ScenarioName = keyof typeof HTTP_SCENARIOS;

const SIMPLE = [
  'raw',
  'raw-restmachine',
  'raw-restmachine-json',
  'fastify',
  'restmachine',
  'restmachine-json',
];
const NOTES = ['restmachine', 'fastify', 'hono'];
const LAMBDA = ['floor', 'restmachine', 'hono'];

function jobs(bundles: string): Job[] {
  const out: Job[] = [];
  for (const [scenario, what] of Object.entries(HTTP_SCENARIOS)) {
    if (what.startsWith('notes-')) {
      for (const name of NOTES) {
        for (const server of [`${name}-notes`, `raw-${name}-notes`]) {
          out.push({
            scenario,
            contender: server.replace('-notes', ''),
            args: (n) => ['drive.mjs', server, what, String(n), './notes-servers.mjs'],
            samples: 1,
          });
        }
      }
    } else if (what.includes('-get') || what.includes('-post')) {
      for (const name of LAMBDA) {
        out.push({
          scenario,
          contender: name,
          args: (n) => ['lambda-drive.mjs', bundles, name, what, String(n)],
          samples: 1,
        });
      }
    } else {
      for (const name of SIMPLE) {
        out.push({
          scenario,
          contender: name,
          args: (n) => ['drive.mjs', name, what, String(n)],
          samples: name.startsWith('raw') ? 1 : FRAMEWORK_SAMPLES,
        });
      }
    }
  }
  return out;
}

/**
 * Runs the jobs two at a time (valgrind is single-threaded), every job's first count before
 * any second one, so that the repeated counts of a job are spread over the run.
 */
async function measureAll(
  all: Job[],
  log: (message: string) => void,
): Promise<Map<string, number[]>> {
  const results = new Map<string, number[]>();
  const runs: Array<{ job: Job; sample: number }> = [];
  const most = Math.max(...all.map((job) => job.samples));
  for (let sample = 1; sample <= most; sample++) {
    for (const job of all) if (sample <= job.samples) runs.push({ job, sample });
  }
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < runs.length) {
      const { job, sample } = runs[next++] as { job: Job; sample: number };
      const value = await perRequest(job);
      const key = `${job.scenario}\u0000${job.contender}`;
      results.set(key, [...(results.get(key) ?? []), value]);
      const which = job.samples > 1 ? ` (count ${sample} of ${job.samples})` : '';
      log(`${job.scenario}, ${job.contender}: ${value} instructions${which}`);
    }
  };
  await Promise.all([worker(), worker()]);
  return results;
}

function hasValgrind(): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const OWN = 'own overhead';

async function runSection(context: SectionContext): Promise<SectionReport> {
  const report = newReport('instructions', 'Instructions per request', [
    'fastify',
    '@fastify/cors',
    'hono',
    '@hono/zod-validator',
  ]);
  report.method.push(
    `valgrind cachegrind, no cache simulation; (instructions of ${LARGE.toLocaleString('en')} requests − instructions of ${SMALL.toLocaleString('en')}) / ${(LARGE - SMALL).toLocaleString('en')}. HTTP over 50 in-memory keep-alive connections (no sockets), Lambda handlers called in-process.`,
    "Own overhead: a framework's instructions minus raw node:http sending exactly the headers it sends in that scenario, names and values alike (`raw-restmachine` for restmachine's: `vary`, `content-type`, `x-request-id`, `content-length`, and `accept-ranges` on the GETs; `raw-restmachine-json` for `renderers: \"json\"`, the same without `vary`; `raw` for Fastify's `content-type` and `content-length`; test/bench/baselines.test.ts checks the lists; the notes application's `raw-*` replays exactly what each framework sent).",
    '`restmachine-json`: `new RestApplication({ renderers: "json" })`.',
    `In GET /, the parameterised GET and POST /echo each framework is counted ${FRAMEWORK_SAMPLES} times and raw node:http once (its count moves by under 250 instructions); a framework's own overhead is each of its counts less raw's, and a ratio the median of the ratios count by count.`,
  );
  if (!hasValgrind()) {
    report.skipped.push('every scenario: valgrind is not installed');
    return report;
  }
  context.log('building dist/ and the Lambda bundles');
  execFileSync('node', ['scripts/build.mjs'], { stdio: 'ignore' });
  const bundles = mkdtempSync(join(tmpdir(), 'restmachine-lambda-'));
  try {
    execFileSync('node', [join(DRIVER_DIR, 'lambda-bundle.mjs'), bundles], { stdio: 'inherit' });
    const all = jobs(bundles);
    const results = await measureAll(all, context.log);
    const values = (scenario: string, contender: string): number[] =>
      results.get(`${scenario}\u0000${contender}`) ?? [Number.NaN];
    const value = (scenario: string, contender: string): number =>
      median(values(scenario, contender));
    for (const scenario of Object.keys(HTTP_SCENARIOS) as ScenarioName[]) {
      const contenders = [
        ...new Set(all.filter((j) => j.scenario === scenario).map((j) => j.contender)),
      ];
      report.scenarios.push({
        name: scenario,
        unit: 'instructions',
        higherIsBetter: false,
        subject: 'restmachine',
        measurements: contenders.map((contender) => ({
          contender,
          samples: values(scenario, contender),
        })),
      });
    }
    const targets: Target[] = [];
    for (const scenario of Object.keys(HTTP_SCENARIOS).slice(0, 3)) {
      const name = `${scenario}: ${OWN}`;
      // One sample per count of the framework, each less the raw server's median.
      const own = (framework: string, raw: string): number[] =>
        values(scenario, framework).map((count) => count - value(scenario, raw));
      report.scenarios.push({
        name,
        unit: 'instructions',
        higherIsBetter: false,
        subject: 'restmachine',
        measurements: [
          { contender: 'restmachine', samples: own('restmachine', 'raw-restmachine') },
          {
            contender: 'restmachine-json',
            samples: own('restmachine-json', 'raw-restmachine-json'),
          },
          { contender: 'fastify', samples: own('fastify', 'raw') },
        ],
      });
      targets.push({
        label: `${scenario}: own overhead at most Fastify's`,
        scenario: name,
        peer: 'fastify',
        comparator: 'at-most',
        bound: 1,
      });
    }
    for (const scenario of Object.keys(HTTP_SCENARIOS).slice(3, 5)) {
      const name = `${scenario}: ${OWN}`;
      report.scenarios.push({
        name,
        unit: 'instructions',
        higherIsBetter: false,
        subject: 'restmachine',
        measurements: NOTES.map((framework) => ({
          contender: framework,
          samples: [value(scenario, framework) - value(scenario, `raw-${framework}`)],
        })),
      });
      for (const peer of ['fastify', 'hono']) {
        targets.push({
          label: `${scenario}: own overhead at most 0.9× ${peer}'s`,
          scenario: name,
          peer,
          comparator: 'at-most',
          bound: 0.9,
        });
      }
    }
    for (const scenario of Object.keys(HTTP_SCENARIOS).slice(5)) {
      const get = scenario.includes('GET');
      targets.push(
        {
          label: `${scenario}: at most ${get ? 3 : 1.5}× the floor`,
          scenario,
          peer: 'floor',
          comparator: 'at-most',
          bound: get ? 3 : 1.5,
        },
        {
          label: `${scenario}: at most 0.2× Hono`,
          scenario,
          peer: 'hono',
          comparator: 'at-most',
          bound: 0.2,
        },
      );
    }
    evaluateTargets(report, targets);
  } finally {
    rmSync(bundles, { recursive: true, force: true });
  }
  return report;
}

export const section: Section = {
  name: 'instructions',
  title: 'Instructions',
  run: runSection,
};
