/**
 * Section 2, Lambda: per-event cost in-process (metrics off) for REST 1.0 and HTTP API 2.0
 * events against Hono's `aws-lambda` handle, serverless-express with Express, Powertools'
 * event handler and a hand-written floor; and which adapters change the event they are given.
 */

import { EVENT_LABELS, type EventName } from '../lambda/events.js';
import { bundle, missingSubject } from '../lib/build.js';
import type { Section, SectionContext } from '../lib/context.js';
import { profileWorker } from '../lib/profiling.js';
import {
  evaluateTargets,
  missedTargets,
  newReport,
  type SectionReport,
  type Target,
} from '../lib/report.js';
import { runInProcessRounds, scenarioFromSamples } from '../lib/rounds.js';
import { markdownTable } from '../lib/table.js';

const PEERS = ['hono', 'serverless-express', 'powertools', 'floor'];
const EVENTS = Object.keys(EVENT_LABELS) as EventName[];

function targets(): Target[] {
  return EVENTS.flatMap((event): Target[] => {
    const scenario = EVENT_LABELS[event];
    const get = event.endsWith('get');
    return [
      {
        label: `${scenario}: at most 0.2× Hono`,
        scenario,
        peer: 'hono',
        comparator: 'at-most',
        bound: 0.2,
      },
      {
        label: `${scenario}: at most ${get ? 10 : 2}× the floor`,
        scenario,
        peer: 'floor',
        comparator: 'at-most',
        bound: get ? 10 : 2,
      },
    ];
  });
}

async function bundles(contenders: readonly string[]): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const name of contenders) {
    files.set(name, await bundle(`bench/lambda/contenders/${name}.ts`, { name: `lambda-${name}` }));
  }
  return files;
}

async function run(context: SectionContext): Promise<SectionReport> {
  const report = newReport('lambda', 'Lambda: per-event cost', [
    'hono',
    '@codegenie/serverless-express',
    'express',
    '@aws-lambda-powertools/event-handler',
  ]);
  report.method.push(
    'In-process: each contender in a fresh pinned process per round; the handler is called with the same event object, one call at a time, after a warm-up.',
    'Routes: `GET /users/{id}/posts/{postId}` answering `{ id, postId }` and `POST /echo` answering the parsed 1 KB JSON body; realistic API Gateway events with eight headers.',
    'restmachine runs with metrics off (`enableMetrics: false`). `floor`: a hand-written handler that reads the event, routes with string checks and returns the same result.',
    'Every answer is checked before and after measuring; every event is compared with a copy taken before the first call.',
  );
  const missing = missingSubject('aws');
  if (missing !== undefined) {
    report.skipped.push(`every scenario: ${missing} (the CloudGatewayAdapter)`);
    return report;
  }
  const contenders = ['restmachine', ...PEERS];
  const files = await bundles(contenders);
  const script = await bundle('bench/lambda/worker.ts', { name: 'lambda-worker' });
  const result = await runInProcessRounds(context, script, contenders, (name) => [
    files.get(name) as string,
  ]);
  for (const event of EVENTS) {
    report.scenarios.push(
      scenarioFromSamples(
        result,
        EVENT_LABELS[event],
        event,
        contenders,
        'restmachine',
        'µs/event',
        context.options.clock,
      ),
    );
  }
  const mutations = [...result.notes].filter((note) => note.includes(' mutates '));
  report.extra.push(
    `**Event mutation** (each event compared with a copy taken before the first call)\n\n${markdownTable(
      ['Contender', 'Changes the event it is given'],
      contenders.map((name) => {
        const own = mutations.filter((note) => note.startsWith(`${name} mutates`));
        if (result.errors.has(name)) return [name, 'not checked (failed)'];
        return [
          name,
          own.length === 0 ? 'no' : own.map((n) => n.slice(name.length + 1)).join('; '),
        ];
      }),
      'll',
    )}`,
  );
  evaluateTargets(report, targets());
  return report;
}

async function profileMissed(report: SectionReport, context: SectionContext): Promise<string[]> {
  const files = await bundles(['restmachine']);
  const script = await bundle('bench/lambda/worker.ts', { name: 'lambda-worker' });
  const missed = new Set(missedTargets(report).map((target) => target.scenario));
  const blocks: string[] = [];
  // One profile per kind of request (the GETs, the POSTs), each over both payload versions.
  for (const kind of ['get', 'post']) {
    const events = EVENTS.filter(
      (event) => event.endsWith(kind) && missed.has(EVENT_LABELS[event]),
    );
    if (events.length === 0) continue;
    const label = `restmachine handling ${events.map((event) => EVENT_LABELS[event]).join(' and ')}`;
    blocks.push(
      await profileWorker(context, script, label, [
        'restmachine',
        '2000',
        '300',
        files.get('restmachine') as string,
        events.join(','),
      ]),
    );
  }
  return blocks;
}

export const section: Section = { name: 'lambda', title: 'Lambda', run, profileMissed };
