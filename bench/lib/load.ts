/**
 * Load rounds for servers: each round starts every contender in turn (rotating the order),
 * checks its answers, warms it up with wrk, measures each scenario with wrk and stops it.
 */
import type { SectionContext } from './context.js';
import type { RunningServer } from './processes.js';
import type { Measurement, Scenario } from './report.js';
import { rotation } from './rounds.js';
import { runWrk, type WrkRequest } from './wrk.js';

export interface ServerContender {
  readonly name: string;
  start(): Promise<RunningServer>;
}

export interface LoadScenario {
  readonly name: string;
  readonly request: WrkRequest;
  /** Requests per second, or megabytes per second (for large files). */
  readonly metric: 'req/s' | 'MB/s';
  /** Overrides the run's connection count (large files need fewer). */
  readonly connections?: number;
  /** Returns what is wrong with an answer, or undefined when it is right. */
  check(status: number, body: Uint8Array, headers: Headers): string | undefined;
}

/** Sends the scenario's request once and checks the answer. */
export async function checkAnswer(port: number, scenario: LoadScenario): Promise<void> {
  const { request } = scenario;
  const response = await fetch(`http://127.0.0.1:${port}${request.path}`, {
    method: request.method ?? 'GET',
    headers: request.headers,
    body: request.body,
  });
  const body = new Uint8Array(await response.arrayBuffer());
  const problem = scenario.check(response.status, body, response.headers);
  if (problem !== undefined) throw new Error(`wrong answer to ${scenario.name}: ${problem}`);
}

export interface LoadRun {
  /** Samples by contender, then by scenario name. */
  readonly samples: Map<string, Map<string, number[]>>;
  readonly errors: Map<string, string>;
}

export async function runLoadRounds(
  context: SectionContext,
  contenders: readonly ServerContender[],
  scenarios: readonly LoadScenario[],
): Promise<LoadRun> {
  const { options, pinning } = context;
  const samples = new Map(contenders.map((c) => [c.name, new Map<string, number[]>()]));
  const errors = new Map<string, string>();
  for (let round = 0; round < options.rounds; round++) {
    for (const contender of rotation(contenders, round)) {
      if (errors.has(contender.name)) continue;
      let server: RunningServer | undefined;
      try {
        server = await contender.start();
        for (const scenario of scenarios) {
          context.log(`round ${round + 1}/${options.rounds}: ${contender.name}, ${scenario.name}`);
          await checkAnswer(server.port, scenario);
          const load = {
            port: server.port,
            request: scenario.request,
            connections: scenario.connections ?? options.connections,
            core: pinning.loadCore,
          };
          await runWrk({ ...load, seconds: options.warmupSeconds });
          const result = await runWrk({ ...load, seconds: options.wrkSeconds });
          if (result.errors > 0) {
            throw new Error(`${scenario.name}: ${result.errorText} out of ${result.requests}`);
          }
          const value =
            scenario.metric === 'MB/s' ? result.megabytesPerSecond : result.requestsPerSecond;
          const byScenario = samples.get(contender.name) as Map<string, number[]>;
          byScenario.set(scenario.name, [...(byScenario.get(scenario.name) ?? []), value]);
        }
      } catch (error) {
        const stderr = server?.stderr().trim();
        errors.set(
          contender.name,
          `${(error as Error).message}${stderr ? ` (stderr: ${stderr.slice(-300)})` : ''}`,
        );
        context.log(`${contender.name} failed: ${errors.get(contender.name)}`);
      } finally {
        await server?.stop();
      }
    }
  }
  return { samples, errors };
}

/** The scenario tables of a load run. */
export function loadScenarios(
  run: LoadRun,
  contenders: readonly ServerContender[],
  scenarios: readonly LoadScenario[],
  subject: string,
): Scenario[] {
  return scenarios.map((scenario) => ({
    name: scenario.name,
    unit: scenario.metric,
    higherIsBetter: true,
    subject,
    measurements: contenders.map((contender): Measurement => {
      const measurement: Measurement = {
        contender: contender.name,
        samples: run.samples.get(contender.name)?.get(scenario.name) ?? [],
      };
      const error = run.errors.get(contender.name);
      if (error !== undefined) measurement.error = error;
      return measurement;
    }),
  }));
}
