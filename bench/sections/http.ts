/**
 * Section 1, HTTP: raw node:http with a hand-written router (with two headers, and with the five
 * restmachine sends), Fastify, Hono on
 * @hono/node-server, Express 5 and restmachine's serve(), each pinned to one core with wrk on
 * the other: GET / (JSON), GET /users/{id}/posts/{postId} behind 100 parameterised decoy
 * routes, and POST /echo with a 1 KB JSON body.
 */

import { execFileSync } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import { NOTE_BODY, ORIGIN, TOKEN } from '../instructions/notes-servers.mjs';
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
import {
  ECHO_BODY,
  ECHO_DOCUMENT,
  PARAMS_DOCUMENT,
  PARAMS_PATH,
  ROOT_DOCUMENT,
} from '../lib/payload.js';
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

const CONTENDERS = ['restmachine', 'raw', 'raw-spec-headers', 'fastify', 'hono', 'express'];

function jsonCheck(expected: unknown): LoadScenario['check'] {
  return (status, body, headers) => {
    if (status !== 200) return `status ${status}`;
    if (!headers.get('content-type')?.startsWith('application/json')) {
      return `content-type ${headers.get('content-type')}`;
    }
    const text = new TextDecoder().decode(body);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return `not JSON: ${text.slice(0, 100)}`;
    }
    return isDeepStrictEqual(parsed, expected) ? undefined : `body ${text.slice(0, 100)}`;
  };
}

export const SCENARIOS: LoadScenario[] = [
  {
    name: 'GET / (JSON)',
    request: { path: '/' },
    metric: 'req/s',
    check: jsonCheck(ROOT_DOCUMENT),
  },
  {
    name: 'GET /users/{id}/posts/{postId} after 100 decoy routes',
    request: { path: PARAMS_PATH },
    metric: 'req/s',
    check: jsonCheck(PARAMS_DOCUMENT),
  },
  {
    name: 'POST /echo (1 KB JSON)',
    request: {
      method: 'POST',
      path: '/echo',
      body: ECHO_BODY,
      headers: { 'Content-Type': 'application/json' },
    },
    metric: 'req/s',
    check: jsonCheck(ECHO_DOCUMENT),
  },
];

const NOTES_CONTENDERS = ['restmachine', 'fastify', 'hono'];
const NOTES_HEADERS = { Origin: ORIGIN, Authorization: `Bearer ${TOKEN}` };

function noteCheck(status: number, body: Uint8Array, headers: Headers): string | undefined {
  if (status !== 200 && status !== 201) return `status ${status}`;
  if (headers.get('access-control-allow-origin') !== ORIGIN) return 'no CORS header';
  const note = JSON.parse(new TextDecoder().decode(body)) as { id?: unknown };
  return typeof note.id === 'string' ? undefined : 'no note in the body';
}

/** The realistic application (bench/instructions/notes-servers.mjs), restmachine, Fastify and Hono. */
export const NOTES_SCENARIOS: LoadScenario[] = [
  {
    name: 'Notes: POST /notes (zod, CORS, bearer)',
    request: {
      method: 'POST',
      path: '/notes',
      body: NOTE_BODY,
      headers: { ...NOTES_HEADERS, 'Content-Type': 'application/json' },
    },
    metric: 'req/s',
    check: noteCheck,
  },
  {
    name: 'Notes: GET /notes/{id} (ETag, CORS, bearer)',
    request: { path: '/notes/1', headers: NOTES_HEADERS },
    metric: 'req/s',
    check: noteCheck,
  },
];

async function notesContenders(context: SectionContext): Promise<ServerContender[]> {
  // The notes servers load restmachine from dist/, as the instruction counts do.
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'ignore' });
  const script = await bundle('bench/http/servers/notes.ts', { name: 'http-notes' });
  return NOTES_CONTENDERS.map((name) => ({
    name,
    start: () =>
      startServer({
        command: process.execPath,
        args: [script, name],
        core: context.pinning.serverCore,
        readyLine: /READY (\d+)/,
      }),
  }));
}

const TARGETS: Target[] = [
  ...SCENARIOS.map(
    (scenario): Target => ({
      label: `${scenario.name}: at least Fastify's throughput`,
      scenario: scenario.name,
      peer: 'fastify',
      comparator: 'at-least',
      bound: 1,
    }),
  ),
  {
    label: 'GET / (JSON): at least 0.9× raw node:http',
    scenario: 'GET / (JSON)',
    peer: 'raw',
    comparator: 'at-least',
    bound: 0.9,
  },
];

async function contenders(context: SectionContext): Promise<ServerContender[]> {
  const list: ServerContender[] = [];
  for (const name of CONTENDERS) {
    const script = await bundle(`bench/http/servers/${name}.ts`, { name: `http-${name}` });
    list.push({
      name,
      start: () =>
        startServer({
          command: process.execPath,
          args: [script],
          core: context.pinning.serverCore,
          readyLine: /READY (\d+)/,
        }),
    });
  }
  return list;
}

async function run(context: SectionContext): Promise<SectionReport> {
  const report = newReport('http', 'HTTP servers', [
    'fastify',
    'hono',
    '@hono/node-server',
    'express',
  ]);
  const missing = missingSubject('node') ?? ensureTool('wrk', 'wrk');
  if (missing !== undefined) {
    report.skipped.push(`every scenario: ${missing}`);
    return report;
  }
  report.method.push(
    'Each server in its own process pinned to one core, wrk (1 thread) pinned to the other; a fresh server per contender and round, its answers checked, warmed up with wrk, then measured.',
    '`raw`: node:http with a hand-written router (string compares and one split), sending `content-type` and `content-length`. `raw-spec-headers`: the same, sending exactly the headers restmachine sends on each answer (also `vary: Accept` and a fresh `x-request-id`, and `accept-ranges: bytes` on the GET answers): what they cost Node with no framework at all. The others register 100 parameterised decoy routes (half under `/users/{id}/…`) before the measured ones.',
    'Every framework with its defaults: Fastify logger off, Express 5 with `express.json()` on the POST route (and its default weak ETag), restmachine with its default logger.',
  );
  const list = await contenders(context);
  const result = await runLoadRounds(context, list, SCENARIOS);
  report.scenarios.push(...loadScenarios(result, list, SCENARIOS, 'restmachine'));
  const notes = await notesContenders(context);
  const notesResult = await runLoadRounds(context, notes, NOTES_SCENARIOS);
  report.scenarios.push(...loadScenarios(notesResult, notes, NOTES_SCENARIOS, 'restmachine'));
  evaluateTargets(report, [...TARGETS, ...cpuTargets(TARGETS)]);
  return report;
}

async function profileMissed(report: SectionReport, context: SectionContext): Promise<string[]> {
  const script = await bundle('bench/http/servers/restmachine.ts', { name: 'http-restmachine' });
  const missed = new Set(missedTargets(report).map((target) => target.scenario));
  const blocks: string[] = [];
  for (const scenario of SCENARIOS.filter(
    (s) => missed.has(s.name) || missed.has(cpuScenarioName(s.name)),
  )) {
    const dir = `${context.profileDir}/http-${SCENARIOS.indexOf(scenario)}`;
    const server = await startServer({
      command: process.execPath,
      args: ['--cpu-prof', `--cpu-prof-dir=${dir}`, script],
      core: context.pinning.serverCore,
      readyLine: /READY (\d+)/,
    });
    try {
      await runWrk({
        port: server.port,
        request: scenario.request,
        seconds: context.options.wrkSeconds,
        connections: context.options.connections,
        core: context.pinning.loadCore,
      });
    } finally {
      await server.stop();
    }
    blocks.push(describeProfile(`restmachine serving ${scenario.name}`, dir));
  }
  return blocks;
}

export const section: Section = { name: 'http', title: 'HTTP servers', run, profileMissed };
