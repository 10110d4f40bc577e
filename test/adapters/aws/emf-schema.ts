/**
 * The EMF specification's structure as a JSON Schema, and a parser that checks a line against it,
 * shared by the metrics tests.
 */
import { Ajv } from 'ajv';
import { expect } from 'vitest';
import { METRIC_UNITS } from '../../../src/adapters/aws/index.js';

/** The EMF specification's structure as a JSON Schema (limits as CloudWatch documents them). */
export const EMF_SCHEMA = {
  type: 'object',
  required: ['_aws'],
  properties: {
    _aws: {
      type: 'object',
      required: ['Timestamp', 'CloudWatchMetrics'],
      properties: {
        Timestamp: { type: 'integer', minimum: 0 },
        CloudWatchMetrics: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['Namespace', 'Dimensions', 'Metrics'],
            additionalProperties: false,
            properties: {
              Namespace: { type: 'string', minLength: 1, maxLength: 255 },
              Dimensions: {
                type: 'array',
                items: {
                  type: 'array',
                  maxItems: 30,
                  items: { type: 'string', minLength: 1, maxLength: 250 },
                },
              },
              Metrics: {
                type: 'array',
                maxItems: 100,
                items: {
                  type: 'object',
                  required: ['Name'],
                  additionalProperties: false,
                  properties: {
                    Name: { type: 'string', minLength: 1, maxLength: 1024 },
                    Unit: { enum: [...METRIC_UNITS] },
                    StorageResolution: { enum: [1, 60] },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
} as const;

const validateStructure = new Ajv({ allErrors: true }).compile(EMF_SCHEMA);

export interface EmfLine {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: Array<{
      Namespace: string;
      Dimensions: string[][];
      Metrics: Array<{ Name: string; Unit: string; StorageResolution?: number }>;
    }>;
  };
  [member: string]: unknown;
}

/** Parses one line and checks it is valid EMF: the structure, and every reference resolved. */
export function parseEmf(line: string): EmfLine {
  expect(line).not.toContain('\n');
  const document = JSON.parse(line) as EmfLine;
  if (!validateStructure(document)) throw new Error(JSON.stringify(validateStructure.errors));
  for (const directive of document._aws.CloudWatchMetrics) {
    for (const set of directive.Dimensions) {
      for (const name of set) expect(typeof document[name], `dimension ${name}`).toBe('string');
    }
    for (const metric of directive.Metrics) {
      const value = document[metric.Name];
      const values = Array.isArray(value) ? value : [value];
      expect(values.length).toBeGreaterThan(0);
      expect(values.length).toBeLessThanOrEqual(100);
      for (const item of values) expect(Number.isFinite(item), `metric ${metric.Name}`).toBe(true);
    }
  }
  return document;
}
