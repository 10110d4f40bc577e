/**
 * Configuration worker: `schema.validate(value)` on the seed's schema against raw Ajv with the
 * same schema, and loading + resolving + validating a 1,000-key YAML configuration.
 */
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { Config, Schema } from '../../src/config/index.js';
import { type Cost, costPerSyncCall, report, workerArgs } from '../lib/timing.js';
import {
  configEnvironment,
  generatedConfig,
  generatedSchema,
  INVALID_DOCUMENT,
  SEED_SCHEMA,
  VALID_DOCUMENT,
} from './documents.js';

type Check = (value: unknown) => boolean;

function measureValidation(
  check: Check,
  durationMs: number,
  warmupMs: number,
): Record<string, Cost> {
  if (!check(VALID_DOCUMENT)) throw new Error('the valid document was rejected');
  if (check(INVALID_DOCUMENT)) throw new Error('the invalid document was accepted');
  const result: Record<string, Cost> = {};
  for (const [name, document] of [
    ['valid', VALID_DOCUMENT],
    ['invalid', INVALID_DOCUMENT],
  ] as const) {
    costPerSyncCall(() => check(document), warmupMs);
    result[name] = costPerSyncCall(() => check(document), durationMs);
  }
  return result;
}

function measureLoad(
  load: () => unknown,
  durationMs: number,
  warmupMs: number,
): Record<string, Cost> {
  load();
  costPerSyncCall(load, warmupMs);
  return { load: costPerSyncCall(load, durationMs) };
}

const args = workerArgs();
Object.assign(process.env, configEnvironment());
const interpolatedText = generatedConfig(true);
const plainText = generatedConfig(false);

const CONTENDERS: Record<string, () => Record<string, Cost>> = {
  restmachine: () => {
    const schema = Schema.fromObject(SEED_SCHEMA);
    return measureValidation(
      (value) => schema.validate(value).length === 0,
      args.durationMs,
      args.warmupMs,
    );
  },
  ajv: () => {
    const validate = new Ajv().compile(SEED_SCHEMA);
    return measureValidation((value) => validate(value), args.durationMs, args.warmupMs);
  },
  'ajv-all-errors': () => {
    const validate = new Ajv({ allErrors: true }).compile(SEED_SCHEMA);
    return measureValidation((value) => validate(value), args.durationMs, args.warmupMs);
  },
  'restmachine-config': () => {
    const schema = Schema.fromObject(generatedSchema());
    return measureLoad(
      () => Config.fromYaml(interpolatedText).validate(schema),
      args.durationMs,
      args.warmupMs,
    );
  },
  'yaml-ajv': () => {
    const validate = new Ajv({ allErrors: true }).compile(generatedSchema());
    return measureLoad(
      () => {
        const value = parse(plainText) as unknown;
        if (!validate(value)) throw new Error(JSON.stringify(validate.errors?.slice(0, 3)));
        return value;
      },
      args.durationMs,
      args.warmupMs,
    );
  },
};

const run = CONTENDERS[args.contender];
if (run === undefined) throw new Error(`Unknown contender ${args.contender}`);
report({ costs: run() });
