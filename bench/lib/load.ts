/**
 * Load rounds for servers: each round starts every contender in turn (rotating the order),
 * checks its answers, warms it up with wrk, measures each scenario with wrk and stops it. The
 * server's CPU time is read around each measured run too.
 */
import type { SectionContext } from './context.js';
import { processTreeCpuSeconds } from './proc-cpu.js';
import type { RunningServer } from './processes.js';
import type { Measurement, Scenario, Target } from './report.js';
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

/** Samples by contender, then by scenario name, one per round. */
type Samples = Map<string, Map<string, number[]>>;

export interface LoadRun {
  /** Throughput samples (the scenario's metric). */
  readonly samples: Samples;
  /** Server CPU microseconds per request. */
  readonly cpuPerRequest: Samples;
  readonly errors: Map<string, string>;
}

function append(into: Samples, contender: string, scenario: string, value: number): void {
  const byScenario = into.get(contender) ?? new Map<string, number[]>();
  byScenario.set(scenario, [...(byScenario.get(scenario) ?? []), value]);
  into.set(contender, byScenario);
}

export async function runLoadRounds(
  context: SectionContext,
  contenders: readonly ServerContender[],
  scenarios: readonly LoadScenario[],
): Promise<LoadRun> {
  const { options, pinning } = context;
  const run: LoadRun = { samples: new Map(), cpuPerRequest: new Map(), errors: new Map() };
  for (let round = 0; round < options.rounds; round++) {
    for (const contender of rotation(contenders, round)) {
      if (run.errors.has(contender.name)) continue;
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
          const cpuBefore = processTreeCpuSeconds(server.pid);
          const result = await runWrk({ ...load, seconds: options.wrkSeconds });
          const cpuAfter = processTreeCpuSeconds(server.pid);
          if (result.errors > 0) {
            throw new Error(`${scenario.name}: ${result.errorText} out of ${result.requests}`);
          }
          const value =
            scenario.metric === 'MB/s' ? result.megabytesPerSecond : result.requestsPerSecond;
          append(run.samples, contender.name, scenario.name, value);
          if (cpuBefore !== undefined && cpuAfter !== undefined) {
            const micros = ((cpuAfter - cpuBefore) * 1e6) / result.requests;
            append(run.cpuPerRequest, contender.name, scenario.name, micros);
          }
        }
      } catch (error) {
        const stderr = server?.stderr().trim();
        const message = `${(error as Error).message}${stderr ? ` (stderr: ${stderr.slice(-300)})` : ''}`;
        run.errors.set(contender.name, message);
        context.log(`${contender.name} failed: ${message}`);
      } finally {
        await server?.stop();
      }
    }
  }
  return run;
}

/** The name of a scenario's server-CPU-per-request table. */
export function cpuScenarioName(name: string): string {
  return `${name}: server CPU per request`;
}

/**
 * The scenario tables of a load run: throughput (what the targets name), then the server's CPU
 * time per request in the same runs.
 */
export function loadScenarios(
  run: LoadRun,
  contenders: readonly ServerContender[],
  scenarios: readonly LoadScenario[],
  subject: string,
): Scenario[] {
  const table = (scenario: LoadScenario, cpu: boolean): Scenario => ({
    name: cpu ? cpuScenarioName(scenario.name) : scenario.name,
    unit: cpu ? 'µs/request' : scenario.metric,
    measure: cpu ? 'server CPU time' : undefined,
    higherIsBetter: !cpu,
    subject,
    measurements: contenders.map((contender): Measurement => {
      const source = cpu ? run.cpuPerRequest : run.samples;
      const measurement: Measurement = {
        contender: contender.name,
        samples: source.get(contender.name)?.get(scenario.name) ?? [],
      };
      const error = run.errors.get(contender.name);
      if (error !== undefined) measurement.error = error;
      return measurement;
    }),
  });
  return [
    ...scenarios.map((scenario) => table(scenario, false)),
    ...scenarios.map((scenario) => table(scenario, true)),
  ];
}

/**
 * The same targets judged by server CPU time per request: "at least k× the throughput" becomes
 * "at most 1/k× the CPU time per request".
 */
export function cpuTargets(targets: readonly Target[]): Target[] {
  return targets.map((target) => ({
    ...target,
    label: `${target.label}, by CPU per request`,
    scenario: cpuScenarioName(target.scenario),
    comparator: target.comparator === 'at-least' ? 'at-most' : 'at-least',
    bound: Number((1 / target.bound).toFixed(3)),
  }));
}
