/**
 * Section 5, Config: `schema.validate(value)` on the schema of seed 001 §2.3 with a valid and
 * an invalid document against raw Ajv with the same schema, and loading + resolving +
 * validating a generated 1,000-key YAML configuration.
 */
import { bundle, missingSubject } from '../lib/build.js';
import type { Section, SectionContext } from '../lib/context.js';
import { profileWorker } from '../lib/profiling.js';
import { evaluateTargets, newReport, type SectionReport, type Target } from '../lib/report.js';
import { runInProcessRounds, scenarioFromSamples } from '../lib/rounds.js';

const VALID = 'schema.validate(value), valid document';
const INVALID = 'schema.validate(value), invalid document (3 violations)';
const LOAD = 'Load + resolve + validate a 1,000-key YAML configuration';

const TARGETS: Target[] = [
  {
    label: 'Valid documents: at least 0.8× raw Ajv',
    scenario: VALID,
    peer: 'ajv',
    comparator: 'at-least',
    bound: 0.8,
  },
];

async function run(context: SectionContext): Promise<SectionReport> {
  const report = newReport('config', 'Configuration', ['ajv', 'yaml']);
  const missing = missingSubject('config');
  if (missing !== undefined) {
    report.skipped.push(`every scenario: ${missing}`);
    return report;
  }
  report.method.push(
    'In-process, synchronous loop, one fresh pinned process per contender and round.',
    '`ajv`: `new Ajv().compile(schema)` (stops at the first error); `ajv-all-errors`: `new Ajv({ allErrors: true })`, which reports every violation as `schema.validate` does. restmachine also turns the errors into located messages.',
    '`restmachine-config`: `Config.fromYaml(text).validate(schema)` on 1,000 keys in ten groups, one key in ten an interpolation (environment variables, defaults, absolute and relative references). `yaml-ajv`: `yaml.parse` + Ajv on the same configuration with the values written out (no interpolation, no locations).',
  );
  const script = await bundle('bench/config/worker.ts', { name: 'config-worker' });
  const contenders = ['restmachine', 'ajv', 'ajv-all-errors', 'restmachine-config', 'yaml-ajv'];
  const result = await runInProcessRounds(context, script, contenders);
  const validators = ['restmachine', 'ajv', 'ajv-all-errors'];
  report.scenarios.push(
    scenarioFromSamples(
      result,
      VALID,
      'valid',
      validators,
      'restmachine',
      'validations/s',
      context.options.clock,
    ),
    scenarioFromSamples(
      result,
      INVALID,
      'invalid',
      validators,
      'restmachine',
      'validations/s',
      context.options.clock,
    ),
    scenarioFromSamples(
      result,
      LOAD,
      'load',
      ['restmachine-config', 'yaml-ajv'],
      'restmachine-config',
      'ms/load',
      context.options.clock,
    ),
  );
  evaluateTargets(report, TARGETS);
  return report;
}

async function profileMissed(_report: SectionReport, context: SectionContext): Promise<string[]> {
  const script = await bundle('bench/config/worker.ts', { name: 'config-worker' });
  return [
    await profileWorker(context, script, 'config restmachine validate', [
      'restmachine',
      '2000',
      '300',
    ]),
  ];
}

export const section: Section = { name: 'config', title: 'Configuration', run, profileMissed };
