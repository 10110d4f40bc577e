/**
 * The injectable `metrics` object: a handler adds its own metrics, dimensions and properties to
 * the current invocation's line.
 */
import {
  checkDimension,
  checkMetric,
  checkProperty,
  isDimensionText,
  type MetricUnit,
  RESERVED_NAMES,
} from '../../../app/inject/metrics-check.js';
import { DataRecord } from '../../../http/data-record.js';
import type { MetricsRecorder } from '../../../request.js';
import type { MetricDatum } from './entry.js';

export { isDimensionText, RESERVED_NAMES };

// EMF limits: 100 metrics per directive, 30 dimensions per set, 100 values per metric.
const MAX_METRICS = 100;
const MAX_DIMENSIONS = 29; // the custom set also holds `service`
const MAX_VALUES = 100;

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
  #closed = false;

  /**
   * Called once the invocation's line is built: a handler still running after its answer (past
   * its `requestTimeout`) would add to a line already out, so its calls throw instead.
   */
  close(): void {
    this.#closed = true;
  }

  #checkOpen(): void {
    if (this.#closed) {
      throw new TypeError(
        "This invocation's metrics line was already published (its response went out): metrics added now would be lost",
      );
    }
  }

  /** Adds a value to `name` (several calls record several values). */
  addMetric(name: string, unit: string, value: number): void {
    this.#checkOpen();
    checkMetric(name, unit, value);
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
    this.#checkOpen();
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
    this.#checkOpen();
    checkProperty(name, value);
    if (
      this.metrics.some((metric) => metric.name === name) ||
      (this.dimensions !== undefined && name in this.dimensions)
    ) {
      throw new TypeError(`"${name}" is already used as a metric or dimension`);
    }
    this.properties ??= new DataRecord();
    this.properties[name] = value;
  }
}
