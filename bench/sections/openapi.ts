/**
 * Section 7, OpenAPI: building the OpenAPI 3.1 document of a 200-route application
 * (bench/openapi/app.ts): the first document of a new application, whose validators were never
 * converted to JSON Schema, and a document built again (as `openapiRouter` does after a
 * registration). The routing table is compiled beforehand in both: it is the application's
 * first request's cost, not the document's. The bound: under 50 ms. restmachine alone:
 * no peer builds a document from the same routes.
 */
import type { Section, SectionContext } from '../lib/context.js';
import { newReport, type Scenario, type SectionReport } from '../lib/report.js';
import { documentedApp, ROUTES } from '../openapi/app.js';

const FRESH = `openapi(app), ${ROUTES} routes, first document (validators converted)`;
const DOCUMENT = `openapi(app), ${ROUTES} routes, built again`;
const BOUND_MS = 50;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** The median milliseconds of `measure` over at least five runs or `budgetMs`. */
function sample(budgetMs: number, measure: () => number): number {
  const times: number[] = [];
  const until = performance.now() + budgetMs;
  while (times.length < 5 || performance.now() < until) times.push(measure());
  return median(times);
}

async function run(context: SectionContext): Promise<SectionReport> {
  const report = newReport('openapi', 'OpenAPI', ['zod']);
  report.method.push(
    `In-process in the harness, wall-clock: each round takes the median of at least five builds (${context.options.inProcessMs} ms per scenario). The bound is ${BOUND_MS} ms per document.`,
  );
  const { openapi } = await import('../../src/openapi/index.js');
  const info = { title: 'Bench', version: '1' };
  // Warm-up: the first build also loads and compiles the modules.
  openapi(documentedApp(), { info });
  const fresh: number[] = [];
  const compiled: number[] = [];
  for (let round = 0; round < context.options.rounds; round++) {
    fresh.push(
      sample(context.options.inProcessMs, () => {
        const app = documentedApp();
        app.routingTable();
        const start = performance.now();
        openapi(app, { info });
        return performance.now() - start;
      }),
    );
    const app = documentedApp();
    app.routingTable();
    compiled.push(
      sample(context.options.inProcessMs, () => {
        const start = performance.now();
        openapi(app, { info });
        return performance.now() - start;
      }),
    );
    context.log(
      `round ${round + 1}: ${fresh.at(-1)?.toFixed(2)} ms first, ${compiled.at(-1)?.toFixed(2)} ms again`,
    );
  }
  const scenario = (name: string, samples: number[]): Scenario => ({
    name,
    unit: 'ms/document',
    higherIsBetter: false,
    subject: 'restmachine',
    measure: 'wall-clock',
    measurements: [{ contender: 'restmachine', samples }],
  });
  report.scenarios.push(scenario(FRESH, fresh), scenario(DOCUMENT, compiled));
  const worst = Math.max(median(fresh), median(compiled));
  report.notes.push(
    `${worst < BOUND_MS ? 'Met' : 'Missed'}: the slower median is ${worst.toFixed(1)} ms per document (bound ${BOUND_MS} ms).`,
  );
  return report;
}

export const section: Section = { name: 'openapi', title: 'OpenAPI', run };
