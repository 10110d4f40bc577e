/**
 * Uploads: the instructions one 1 MB multipart upload (one file) costs restmachine, Fastify
 * with `@fastify/multipart`, and raw `node:http` with `@fastify/busboy` (the parser both use),
 * counted with valgrind as `bench/instructions.sh` counts requests: each server serves N
 * requests over in-memory connections (bench/instructions/drive.mjs with
 * upload-servers.mjs), once for 200 and once for 1,000; the difference divided by 800 leaves
 * out start-up and warm-up. Fewer requests than the 5,000 and 25,000 of GET and POST: each
 * request carries a megabyte, which valgrind runs some fifty times slower than Node does.
 */
import { spawnSync } from 'node:child_process';
import type { Section, SectionContext } from '../lib/context.js';
import { instructionsPerRequest } from '../lib/instructions.js';
import { ROOT } from '../lib/machine.js';
import { evaluateTargets, newReport, type SectionReport, type Target } from '../lib/report.js';
import { ensureTool } from '../lib/system.js';

const SCENARIO = 'POST /upload, one 1 MB file (multipart/form-data)';
const SERVERS = ['restmachine', 'fastify', 'busboy'] as const;
const FEW = 200;
const MANY = 1_000;

const TARGETS: Target[] = [
  {
    label: 'an upload costs restmachine at most 1.1× what it costs Fastify with @fastify/multipart',
    scenario: SCENARIO,
    peer: 'fastify',
    comparator: 'at-most',
    bound: 1.1,
  },
];

async function run(context: SectionContext): Promise<SectionReport> {
  const report = newReport('uploads', 'Uploads: instructions per 1 MB multipart upload', [
    'fastify',
    '@fastify/multipart',
    '@fastify/busboy',
  ]);
  report.method.push(
    `valgrind (cachegrind, no cache simulation) counts the instructions of ${FEW} and of ${MANY} uploads, each server in its own process over 50 in-memory keep-alive connections (no sockets, no system calls); (I(${MANY}) − I(${FEW})) / ${MANY - FEW} is the cost of one upload.`,
    'Each upload: POST /upload with one 1,000,000-byte file; every server reads the file whole into memory and answers its field, name and size as JSON. restmachine keeps it in memory because it is under the 1 MiB spill threshold.',
    '`busboy`: raw node:http piping into @fastify/busboy, the parser restmachine and @fastify/multipart both use: the floor.',
  );
  const missing = ensureTool('valgrind', 'valgrind');
  if (missing !== undefined) {
    report.skipped.push(`${SCENARIO}: ${missing}`);
    return report;
  }
  context.log('building dist/ (the restmachine server loads it)');
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('node scripts/build.mjs failed');
  const measurements = [];
  for (const server of SERVERS) {
    context.log(`${server}: ${FEW} and ${MANY} uploads under valgrind`);
    const upload = (count: number) =>
      ['drive.mjs', server, 'UPLOAD', String(count), './upload-servers.mjs'] as const;
    const cost = await instructionsPerRequest(upload, FEW, MANY, context.pinning.serverCore);
    measurements.push({ contender: server, samples: [cost] });
  }
  report.scenarios.push({
    name: SCENARIO,
    unit: 'instructions/upload',
    higherIsBetter: false,
    subject: 'restmachine',
    measure: 'valgrind instruction count',
    measurements,
  });
  evaluateTargets(report, TARGETS);
  return report;
}

export const section: Section = { name: 'uploads', title: 'Uploads', run };
