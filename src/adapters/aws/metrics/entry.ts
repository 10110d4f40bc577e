/**
 * One invocation's metrics, as every publisher receives them, described in docs/aws-lambda.md, "Metrics".
 */

import type { MetricUnit } from '../../../app/inject/metrics-check.js';

/** The units CloudWatch accepts (its `StandardUnit` list), checked for the core's `metrics` too. */
export { METRIC_UNITS, type MetricUnit } from '../../../app/inject/metrics-check.js';

/** One metric: a value, or several values recorded in the same invocation. */
export interface MetricDatum {
  name: string;
  unit: MetricUnit;
  value: number | number[];
}

/** What a publisher receives once per invocation. */
export interface MetricsEntry {
  namespace: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
  /** Dimension sets, each a name → value map; the first is `{ service, method, route }`. */
  dimensions: Array<Record<string, string>>;
  metrics: MetricDatum[];
  /** Values logged with the metrics but not aggregated (`statusCode`, `path`, `requestId`...). */
  properties: Record<string, unknown>;
  /** Storage resolution in seconds: 1 (high resolution) or 60. */
  resolution: 1 | 60;
}

/**
 * Anything that can publish an invocation's metrics. `publish` may return a promise; the
 * invocation awaits it, so the metrics are out before Lambda freezes the environment.
 *
 * @example
 * const publisher: MetricsPublisher = { publish: (entry) => void queue.push(entry) };
 * new CloudGatewayAdapter(app, { metricsPublisher: publisher });
 */
export interface MetricsPublisher {
  publish(entry: MetricsEntry): void | Promise<void>;
}
