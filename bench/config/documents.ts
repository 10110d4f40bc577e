/**
 * The configuration benchmark's inputs: the schema of seed 001 §2.3 with a valid and an invalid
 * document, and a generated 1,000-key YAML configuration with interpolations and its schema.
 */

/** Seed 001 §2.3: the full schema shown, draft-07. */
export const SEED_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  required: ['app', 'database'],
  additionalProperties: false,
  properties: {
    app: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', minLength: 1 },
        debug: { type: 'boolean', default: false },
      },
    },
    database: {
      type: 'object',
      required: ['host', 'port'],
      properties: {
        host: { type: 'string' },
        port: { type: 'integer', minimum: 1, maximum: 65535 },
        ssl: { type: 'boolean', default: true },
      },
    },
  },
};

export const VALID_DOCUMENT = {
  app: { name: 'bookshop', debug: false },
  database: { host: 'db.internal', port: 5432, ssl: true },
};

/** Three violations: minLength, maximum and an unexpected property. */
export const INVALID_DOCUMENT = {
  app: { name: '' },
  database: { host: 'db.internal', port: 70000 },
  cache: { ttl: 60 },
};

const GROUPS = 10;
const KEYS = 100;

type Kind = 'integer' | 'string' | 'boolean';

function kindOf(key: number): Kind {
  return key % 3 === 0 ? 'integer' : key % 3 === 1 ? 'string' : 'boolean';
}

function literal(group: number, key: number): string {
  const kind = kindOf(key);
  if (kind === 'integer') return String(group * 1000 + key);
  if (kind === 'string') return `value-${group}-${key}`;
  return key % 2 === 0 ? 'true' : 'false';
}

/** Environment variables the interpolated configuration reads. */
export function configEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (let group = 0; group < GROUPS; group++) env[`BENCH_CONFIG_${group}`] = literal(group, 3);
  return env;
}

interface Entry {
  /** The YAML value with interpolation (one key in ten) or as a literal. */
  readonly interpolated: string;
  /** The YAML value the interpolation resolves to. */
  readonly plain: string;
  readonly type: Kind;
}

function yamlLiteral(group: number, key: number): string {
  const text = literal(group, key);
  return kindOf(key) === 'string' ? JSON.stringify(text) : text;
}

/**
 * One key in ten is an interpolation, in turn: an environment variable (set by
 * configEnvironment), a variable's default, an absolute and a relative reference to key0.
 */
function entry(group: number, key: number): Entry {
  const plain = yamlLiteral(group, key);
  if (key % 10 !== 3) return { interpolated: plain, plain, type: kindOf(key) };
  const form = Math.floor(key / 10) % 4;
  if (form === 0) {
    return {
      interpolated: `\${env:BENCH_CONFIG_${group}}`,
      plain: literal(group, 3),
      type: 'integer',
    };
  }
  if (form === 1) {
    return {
      interpolated: `\${env:BENCH_CONFIG_UNSET_${key},default=${literal(group, key)}}`,
      plain,
      type: kindOf(key),
    };
  }
  const reference = form === 2 ? `group${group}.key0` : '.key0';
  return { interpolated: `\${${reference}}`, plain: literal(group, 0), type: 'integer' };
}

/** 1,000 leaf keys in ten groups of a hundred, with interpolations or with their values. */
export function generatedConfig(interpolated: boolean): string {
  const lines: string[] = [];
  for (let group = 0; group < GROUPS; group++) {
    lines.push(`group${group}:`);
    for (let key = 0; key < KEYS; key++) {
      const value = entry(group, key);
      lines.push(`  key${key}: ${interpolated ? value.interpolated : value.plain}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The generated configuration's schema: every key required and typed. */
export function generatedSchema(): object {
  const properties: Record<string, object> = {};
  for (let group = 0; group < GROUPS; group++) {
    const keys: Record<string, object> = {};
    for (let key = 0; key < KEYS; key++) keys[`key${key}`] = { type: entry(group, key).type };
    properties[`group${group}`] = {
      type: 'object',
      required: Object.keys(keys),
      additionalProperties: false,
      properties: keys,
    };
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    required: Object.keys(properties),
    additionalProperties: false,
    properties,
  };
}
