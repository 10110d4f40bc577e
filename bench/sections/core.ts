/**
 * Section 6, Core: what `app.execute()` costs over building the same Response by hand, whether
 * unrelated registrations slow a route down, and a conditional GET answered 304 by an ETag
 * provider against the same GET answered 200.
 */
import { bundle } from '../lib/build.js';
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

const EXECUTE = 'GET /hello through app.execute()';
const CONDITIONAL = 'Conditional GET with an ETag provider';

const TARGETS: Target[] = [
  {
    label: 'execute() at most 3× the hand-built cost',
    scenario: EXECUTE,
    peer: 'hand-built',
    comparator: 'at-most',
    bound: 3,
  },
  {
    label: '100 other routes and 10 unused dependencies change the cost by under 10%',
    scenario: EXECUTE,
    subject: 'restmachine-registered',
    peer: 'restmachine',
    comparator: 'within',
    bound: 0.1,
  },
];

async function etagAvailable(): Promise<boolean> {
  const { Route } = await import('../../src/app/routing/route.js');
  return typeof (Route.prototype as { etag?: unknown }).etag === 'function';
}

async function run(context: SectionContext): Promise<SectionReport> {
  const report = newReport('core', 'Core: app.execute()');
  report.method.push(
    'In-process, one fresh process per contender and round (pinned), metrics and logging as defaults.',
    '`hand-built`: an async function that looks the route up in a `Map` and builds the same Response (status, JSON body, Content-Type, Content-Length, X-Request-ID) by hand.',
    '`restmachine-registered`: the same route after 100 other routes and 10 unused dependencies.',
    'Every call builds a new `Request` with two headers, on every side.',
  );
  const script = await bundle('bench/core/worker.ts', { name: 'core-worker' });
  const contenders = ['restmachine', 'hand-built', 'restmachine-registered'];
  const conditional = await etagAvailable();
  if (conditional) contenders.push('etag-200', 'etag-304');
  else report.skipped.push(`${CONDITIONAL}: Route.prototype.etag does not exist yet`);
  const result = await runInProcessRounds(context, script, contenders);
  report.scenarios.push(
    scenarioFromSamples(
      result,
      EXECUTE,
      'execute',
      ['restmachine', 'hand-built', 'restmachine-registered'],
      'restmachine',
      'µs/request',
      context.options.clock,
    ),
  );
  if (conditional) {
    report.scenarios.push(
      scenarioFromSamples(
        result,
        CONDITIONAL,
        'execute',
        ['etag-304', 'etag-200'],
        'etag-304',
        'µs/request',
        context.options.clock,
      ),
    );
  }
  evaluateTargets(report, TARGETS);
  return report;
}

async function profileMissed(report: SectionReport, context: SectionContext): Promise<string[]> {
  const script = await bundle('bench/core/worker.ts', { name: 'core-worker' });
  const contenders = new Set(missedTargets(report).map((t) => t.subject ?? 'restmachine'));
  const blocks: string[] = [];
  for (const contender of contenders) {
    blocks.push(
      await profileWorker(context, script, `core ${contender}`, [contender, '2000', '300']),
    );
  }
  return blocks;
}

export const section: Section = { name: 'core', title: 'Core', run, profileMissed };
