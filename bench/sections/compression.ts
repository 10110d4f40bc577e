/**
 * Compression: instructions per request for a gzip-compressed 100 KB JSON answer, restmachine's
 * `compress()` against Fastify with `@fastify/compress` and a raw `node:http` server calling
 * `zlib.gzip`. Each server runs under valgrind (cachegrind, no cache simulation) over the
 * in-memory connections of bench/instructions/drive.mjs, once for a small and once for a large
 * number of requests; the difference divided by the difference in requests leaves out start-up
 * and warm-up. zlib's own work (the same deflate at the same level for all three) dominates, so
 * the ratios sit near 1.0.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Section, SectionContext } from '../lib/context.js';
import { evaluateTargets, newReport, type SectionReport, type Target } from '../lib/report.js';
import { ensureTool } from '../lib/system.js';

const SCENARIO = 'GET / (100 KB JSON, Accept-Encoding: gzip)';
const CONTENDERS = ['restmachine-compress', 'fastify-compress', 'raw-gzip'];
// Compressing 100 KB costs a few million instructions: far fewer requests than the 5,000 and
// 25,000 of instructions.sh keep a valgrind run to about a minute.
const SMALL = 200;
const LARGE = 1000;

const TARGETS: Target[] = [
  {
    label: 'gzip of 100 KB JSON: at most 1.1× the instructions of Fastify + @fastify/compress',
    scenario: SCENARIO,
    peer: 'fastify-compress',
    comparator: 'at-most',
    bound: 1.1,
  },
];

const DRIVER_DIR = join(import.meta.dirname, '..', 'instructions');

/** Instructions of one valgrind run of `server` answering `requests` requests. */
function instructions(server: string, requests: number): number {
  const run = spawnSync(
    'valgrind',
    [
      '--tool=cachegrind',
      '--cache-sim=no',
      '--cachegrind-out-file=/dev/null',
      'node',
      '--single-threaded',
      'drive.mjs',
      server,
      '/',
      String(requests),
      './compress-servers.mjs',
    ],
    { cwd: DRIVER_DIR, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const match = /I\s+refs:\s+([\d,]+)/.exec(`${run.stdout}\n${run.stderr}`);
  if (run.status !== 0 || match === null) {
    throw new Error(`valgrind run of ${server} failed: ${run.stderr.slice(-500)}`);
  }
  return Number((match[1] as string).replaceAll(',', ''));
}

async function run(context: SectionContext): Promise<SectionReport> {
  const report = newReport('compression', 'Compression', ['fastify-compress', 'raw-gzip']);
  const missing = ensureTool('valgrind', 'valgrind');
  if (missing !== undefined) {
    report.skipped.push(`every scenario: ${missing}`);
    return report;
  }
  context.log('building dist/ (the restmachine server loads it)');
  const build = spawnSync('node', ['scripts/build.mjs'], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error('node scripts/build.mjs failed');
  report.method.push(
    `Instructions per request under valgrind (cachegrind, no cache simulation): (run of ${LARGE} requests − run of ${SMALL}) / ${LARGE - SMALL}, over 50 in-memory keep-alive connections (bench/instructions/drive.mjs), every request sending \`Accept-Encoding: gzip\`. Fewer requests than the 5,000/25,000 of instructions.sh: each response costs millions of instructions.`,
    "`restmachine-compress`: `app.compress()` (gzip level 6, the whole body at once with `zlib.gzip`). `fastify-compress`: `@fastify/compress` (a zlib stream per response). `raw-gzip`: `zlib.gzip` and `res.end` on plain `node:http`, the floor. Counts every thread, zlib's thread-pool work included; system calls are not counted.",
  );
  const measurements = CONTENDERS.map((contender) => {
    context.log(`${contender}: ${SMALL} and ${LARGE} requests under valgrind`);
    const small = instructions(contender, SMALL);
    const large = instructions(contender, LARGE);
    return { contender, samples: [Math.round((large - small) / (LARGE - SMALL))] };
  });
  report.scenarios.push({
    name: SCENARIO,
    unit: 'instructions/request',
    higherIsBetter: false,
    subject: 'restmachine-compress',
    measurements,
    measure: 'valgrind instruction count',
  });
  evaluateTargets(report, TARGETS);
  return report;
}

export const section: Section = {
  name: 'compression',
  title: 'Compression',
  run,
};
