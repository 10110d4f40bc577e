/**
 * What a handler's custom metrics are (docs/aws-lambda.md, "Metrics"): the units CloudWatch
 * takes and the recorder the injectable `metrics` is. A model, as the request and the response
 * are: the pipeline checks each call (app/inject/metrics-check.ts), the Lambda adapter records it.
 */

/** The units CloudWatch takes. */
export const METRIC_UNITS = [
  'Seconds',
  'Microseconds',
  'Milliseconds',
  'Bytes',
  'Kilobytes',
  'Megabytes',
  'Gigabytes',
  'Terabytes',
  'Bits',
  'Kilobits',
  'Megabits',
  'Gigabits',
  'Terabits',
  'Percent',
  'Count',
  'Bytes/Second',
  'Kilobytes/Second',
  'Megabytes/Second',
  'Gigabytes/Second',
  'Terabytes/Second',
  'Bits/Second',
  'Kilobits/Second',
  'Megabits/Second',
  'Gigabits/Second',
  'Terabits/Second',
  'Count/Second',
  'None',
] as const;

export type MetricUnit = (typeof METRIC_UNITS)[number];

/** Adds custom metrics to the current invocation's metrics line (a no-op outside Lambda). */
export interface MetricsRecorder {
  addMetric(name: string, unit: MetricUnit, value: number): void;
  addDimension(name: string, value: string): void;
  addProperty(name: string, value: unknown): void;
}
