/**
 * Section 4, Static: 1 KB, 100 KB and 10 MB files from restmachine's StaticRouter against
 * @fastify/static, express + serve-static and nginx (one worker), each pinned to one core with
 * wrk on the other.
 */
import { bundle, missingSubject } from '../lib/build.js';
import type { Section, SectionContext } from '../lib/context.js';
import {
  cpuScenarioName,
  cpuTargets,
  type LoadScenario,
  loadScenarios,
  runLoadRounds,
  type ServerContender,
} from '../lib/load.js';
import { startServer } from '../lib/processes.js';
import { describeProfile } from '../lib/profiling.js';
import {
  evaluateTargets,
  missedTargets,
  newReport,
  type SectionReport,
  type Target,
} from '../lib/report.js';
import { ensureTool } from '../lib/system.js';
import { runWrk } from '../lib/wrk.js';
import { FILE_SPECS, type StaticFile, writeStaticFiles } from '../static/files.js';
import { startNginx } from '../static/nginx.js';

const NODE_SERVERS = ['restmachine', 'fastify-static', 'express-static'];

function scenarios(files: readonly StaticFile[]): LoadScenario[] {
  return files.map((file) => {
    const large = file.size > 1024 * 1024;
    return {
      name: `GET a ${file.label} file`,
      request: { path: `/static/${file.name}` },
      metric: large ? 'MB/s' : 'req/s',
      // Ten connections keep 10 MB responses from queueing behind each other for seconds.
      connections: large ? 10 : undefined,
      check: (status, body) => {
        if (status !== 200) return `status ${status}`;
        if (body.length !== file.size) return `${body.length} bytes instead of ${file.size}`;
        return Buffer.compare(Buffer.from(body), Buffer.from(file.content)) === 0
          ? undefined
          : 'different bytes';
      },
    };
  });
}

function targets(): Target[] {
  return FILE_SPECS.map((spec) => ({
    label: `${spec.label} file: at least 2× @fastify/static (${spec.size > 1024 * 1024 ? 'MB/s' : 'req/s'})`,
    scenario: `GET a ${spec.label} file`,
    peer: 'fastify-static',
    comparator: 'at-least' as const,
    bound: 2,
  }));
}

async function serverScript(name: string): Promise<string> {
  return bundle(`bench/static/servers/${name}.ts`, { name: `static-${name}` });
}

async function run(context: SectionContext): Promise<SectionReport> {
  const report = newReport('static', 'Static files', [
    'fastify',
    '@fastify/static',
    'express',
    'serve-static',
  ]);
  const missing = missingSubject('static') ?? ensureTool('wrk', 'wrk');
  if (missing !== undefined) {
    report.skipped.push(`every scenario: ${missing}`);
    return report;
  }
  report.method.push(
    'Each server in its own process pinned to one core (nginx: master and its one worker), wrk (1 thread) on the other; fresh server per contender and round, answers checked byte for byte, warmed up, then measured.',
    "1 KB and 100 KB: requests per second with the run's connection count; 10 MB: response megabytes per second with 10 connections.",
    'Every server with its defaults (ETag and Last-Modified on each; no compression); nginx with `sendfile on`, no access log, one worker.',
  );
  const served = writeStaticFiles();
  try {
    const env = { ...process.env, BENCH_STATIC_ROOT: served.root };
    const list: ServerContender[] = [];
    for (const name of NODE_SERVERS) {
      const script = await serverScript(name);
      list.push({
        name,
        start: () =>
          startServer({
            command: process.execPath,
            args: [script],
            core: context.pinning.serverCore,
            env,
            readyLine: /READY (\d+)/,
          }),
      });
    }
    const nginxMissing = ensureTool('nginx', 'nginx');
    if (nginxMissing === undefined) {
      list.push({
        name: 'nginx',
        start: () => startNginx(served.root, context.pinning.serverCore),
      });
    } else {
      report.skipped.push(`nginx: ${nginxMissing}`);
    }
    const list2 = scenarios(served.files);
    const result = await runLoadRounds(context, list, list2);
    report.scenarios.push(...loadScenarios(result, list, list2, 'restmachine'));
    evaluateTargets(report, [...targets(), ...cpuTargets(targets())]);
  } finally {
    served.remove();
  }
  return report;
}

async function profileMissed(report: SectionReport, context: SectionContext): Promise<string[]> {
  const script = await serverScript('restmachine');
  const missed = new Set(missedTargets(report).map((target) => target.scenario));
  const served = writeStaticFiles();
  const blocks: string[] = [];
  try {
    for (const scenario of scenarios(served.files).filter(
      (s) => missed.has(s.name) || missed.has(cpuScenarioName(s.name)),
    )) {
      const dir = `${context.profileDir}/static-${scenario.request.path.replace(/\W+/g, '-')}`;
      const server = await startServer({
        command: process.execPath,
        args: ['--cpu-prof', `--cpu-prof-dir=${dir}`, script],
        core: context.pinning.serverCore,
        env: { ...process.env, BENCH_STATIC_ROOT: served.root },
        readyLine: /READY (\d+)/,
      });
      try {
        await runWrk({
          port: server.port,
          request: scenario.request,
          seconds: context.options.wrkSeconds,
          connections: scenario.connections ?? context.options.connections,
          core: context.pinning.loadCore,
        });
      } finally {
        await server.stop();
      }
      blocks.push(describeProfile(`restmachine serving ${scenario.name}`, dir));
    }
  } finally {
    served.remove();
  }
  return blocks;
}

export const section: Section = { name: 'static', title: 'Static files', run, profileMissed };
