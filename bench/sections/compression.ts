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
import type { Section, SectionContext } from '../lib/context.js';
import { instructionsPerRequest } from '../lib/instructions.js';
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
  const measurements = [];
  for (const contender of CONTENDERS) {
    context.log(`${contender}: ${SMALL} and ${LARGE} requests under valgrind`);
    const compressed = (count: number) =>
      ['drive.mjs', contender, '/', String(count), './compress-servers.mjs'] as const;
    measurements.push({
      contender,
      samples: [await instructionsPerRequest(compressed, SMALL, LARGE)],
    });
  }
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
