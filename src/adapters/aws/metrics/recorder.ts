/**
 * The injectable `metrics` object: a handler adds its own metrics, dimensions and properties to
 * the current invocation's line.
 */
import { DataRecord } from '../../../http/data-record.js';
import type { MetricsRecorder } from '../../../request.js';
import { METRIC_UNITS, type MetricDatum, type MetricUnit } from './entry.js';

const UNITS: ReadonlySet<string> = new Set(METRIC_UNITS);

/** Names the adapter writes itself; a handler cannot reuse them. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  'Latency',
  'Count',
  '4XXError',
  '5XXError',
  'service',
  'method',
  'route',
  'statusCode',
  'path',
  'requestId',
  'awsRequestId',
  '_aws',
]);

// EMF limits: 100 metrics per directive, 30 dimensions per set, 100 values per metric.
const MAX_METRICS = 100;
const MAX_DIMENSIONS = 29; // the custom set also holds `service`
const MAX_VALUES = 100;
// CloudWatch's limits on names and dimensions (docs/aws-lambda.md, "Metrics"): dimension names
// are at most 250 characters in EMF, dimension values at most 1,024.
const MAX_NAME_LENGTH = 255;
const MAX_DIMENSION_NAME_LENGTH = 250;
const MAX_DIMENSION_VALUE_LENGTH = 1024;
/** Printable ASCII only: CloudWatch refuses other characters, control characters included, in dimensions. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const NON_WHITESPACE = /\S/;

function checkName(kind: string, name: unknown, maxLength = MAX_NAME_LENGTH): string {
  if (typeof name !== 'string' || name === '' || name.length > maxLength) {
    throw new TypeError(
      `${kind} name must be a string of 1 to ${maxLength} characters, got ${JSON.stringify(name)}`,
    );
  }
  if (RESERVED_NAMES.has(name)) {
    throw new TypeError(`${kind} name "${name}" is reserved for restmachine's own metrics`);
  }
  return name;
}

/**
 * Whether CloudWatch takes `text` as a dimension name or value: printable ASCII with at least
 * one character that is not whitespace. A line with any other dimension is dropped whole.
 */
export function isDimensionText(text: string): boolean {
  return PRINTABLE_ASCII.test(text) && NON_WHITESPACE.test(text);
}

function checkDimension(name: string, value: unknown): void {
  checkName('Dimension', name, MAX_DIMENSION_NAME_LENGTH);
  if (!isDimensionText(name) || name.startsWith(':')) {
    throw new TypeError(
      `Dimension name ${JSON.stringify(name)} must be printable ASCII with a non-space character, not starting with ":"`,
    );
  }
  if (
    typeof value !== 'string' ||
    value.length > MAX_DIMENSION_VALUE_LENGTH ||
    !isDimensionText(value)
  ) {
    throw new TypeError(
      `Dimension "${name}" needs a value of 1 to ${MAX_DIMENSION_VALUE_LENGTH} printable ASCII characters, not all spaces, got ${JSON.stringify(value)}`,
    );
  }
}

/**
 * One invocation's custom metrics. Mistakes (an unknown unit, a reserved or clashing name, a
 * dimension CloudWatch refuses, a property JSON cannot encode) throw at the call, so they show up
 * in development instead of as lines CloudWatch drops. Names are kept in records without a
 * prototype, so `toString` or `__proto__` are names like any other.
 */
export class InvocationMetrics implements MetricsRecorder {
  readonly metrics: MetricDatum[] = [];
  dimensions: Record<string, string> | undefined;
  properties: Record<string, unknown> | undefined;

  /** Adds a value to `name` (several calls record several values). */
  addMetric(name: string, unit: string, value: number): void {
    checkName('Metric', name);
    if (!UNITS.has(unit)) {
      throw new TypeError(
        `Unknown metric unit ${JSON.stringify(unit)}; expected one of ${METRIC_UNITS.join(', ')}`,
      );
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new TypeError(`Metric "${name}" needs a finite number, got ${String(value)}`);
    }
    if (
      (this.dimensions !== undefined && name in this.dimensions) ||
      (this.properties !== undefined && name in this.properties)
    ) {
      throw new TypeError(`"${name}" is already used as a dimension or property`);
    }
    const existing = this.metrics.find((metric) => metric.name === name);
    if (existing !== undefined) {
      if (existing.unit !== unit) {
        throw new TypeError(`Metric "${name}" was recorded as ${existing.unit}, not ${unit}`);
      }
      const values = Array.isArray(existing.value) ? existing.value : [existing.value];
      if (values.length >= MAX_VALUES)
        throw new RangeError(`Metric "${name}" has ${MAX_VALUES} values already`);
      values.push(value);
      existing.value = values;
      return;
    }
    if (this.metrics.length >= MAX_METRICS - 4) {
      throw new RangeError(`At most ${MAX_METRICS - 4} custom metrics fit in one EMF line`);
    }
    this.metrics.push({ name, unit: unit as MetricUnit, value });
  }

  /** Adds a dimension to the invocation's second dimension set (`service` plus these). */
  addDimension(name: string, value: string): void {
    checkDimension(name, value);
    if (
      this.metrics.some((metric) => metric.name === name) ||
      (this.properties !== undefined && name in this.properties)
    ) {
      throw new TypeError(`"${name}" is already used as a metric or property`);
    }
    this.dimensions ??= new DataRecord<string>();
    if (!(name in this.dimensions) && Object.keys(this.dimensions).length >= MAX_DIMENSIONS) {
      throw new RangeError(`At most ${MAX_DIMENSIONS} custom dimensions fit in one dimension set`);
    }
    this.dimensions[name] = value;
  }

  /** Adds a value logged with the metrics but not aggregated. */
  addProperty(name: string, value: unknown): void {
    checkName('Property', name);
    if (
      this.metrics.some((metric) => metric.name === name) ||
      (this.dimensions !== undefined && name in this.dimensions)
    ) {
      throw new TypeError(`"${name}" is already used as a metric or dimension`);
    }
    // Encoded once here, cheap for the few properties a handler adds: a value JSON cannot encode
    // (a BigInt, a cycle, a function) would otherwise cost the whole line, built-in metrics too.
    let encoded: string | undefined;
    try {
      encoded = JSON.stringify(value);
    } catch (error) {
      throw new TypeError(`Property "${name}" cannot be encoded as JSON: ${String(error)}`);
    }
    if (encoded === undefined) {
      throw new TypeError(`Property "${name}" cannot be encoded as JSON: ${typeof value}`);
    }
    this.properties ??= new DataRecord();
    this.properties[name] = value;
  }
}
