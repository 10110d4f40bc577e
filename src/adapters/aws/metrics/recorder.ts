/**
 * The injectable `metrics` object: a handler adds its own metrics, dimensions and properties to
 * the current invocation's line.
 */
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

function checkName(kind: string, name: unknown): string {
  if (typeof name !== 'string' || name === '' || name.length > 255) {
    throw new TypeError(
      `${kind} name must be a string of 1 to 255 characters, got ${JSON.stringify(name)}`,
    );
  }
  if (RESERVED_NAMES.has(name)) {
    throw new TypeError(`${kind} name "${name}" is reserved for restmachine's own metrics`);
  }
  return name;
}

/**
 * One invocation's custom metrics. Mistakes (an unknown unit, a reserved or clashing name) throw
 * at the call, so they show up in development instead of as lines CloudWatch drops.
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
      this.dimensions?.[name] !== undefined ||
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
    checkName('Dimension', name);
    if (typeof value !== 'string' || value === '' || value.length > 1024) {
      throw new TypeError(`Dimension "${name}" needs a string value of 1 to 1024 characters`);
    }
    if (
      this.metrics.some((metric) => metric.name === name) ||
      (this.properties !== undefined && name in this.properties)
    ) {
      throw new TypeError(`"${name}" is already used as a metric or property`);
    }
    this.dimensions ??= {};
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
      this.dimensions?.[name] !== undefined
    ) {
      throw new TypeError(`"${name}" is already used as a metric or dimension`);
    }
    this.properties ??= {};
    this.properties[name] = value;
  }
}
