/**
 * One invocation's metrics line: the names API Gateway itself uses (`Latency`, `Count`,
 * `4XXError`, `5XXError`), one dimension set `[service, method, route]`, and what the handler
 * added through the injectable `metrics` (docs/aws-lambda.md, "Metrics").
 */
import type { Logger } from '../../../app/logger.js';
import { parseMethod } from '../../../http/methods.js';
import type { Request } from '../../../request.js';
import type { LambdaContext as Context } from '../events.js';
import type { MetricDatum, MetricsEntry, MetricsPublisher } from './entry.js';
import type { InvocationMetrics } from './recorder.js';

/** What every line of one adapter shares. */
export interface MetricsLine {
  namespace: string;
  /** The `service` dimension; the function's name when unset. */
  serviceName: string | undefined;
  resolution: 1 | 60;
}

/** What one invocation contributes. */
export interface InvocationOutcome {
  request: Request;
  status: number;
  /** Milliseconds from the event's arrival to the result. */
  latency: number;
  context: Context | undefined;
}

/** The entry for one invocation. */
export function invocationEntry(
  line: MetricsLine,
  metrics: InvocationMetrics,
  { request, status, latency, context }: InvocationOutcome,
): MetricsEntry {
  const service = line.serviceName ?? context?.functionName ?? 'unknown';
  // A client can send any method; only the seven known ones become dimension values, so a
  // flood of invented methods cannot create unbounded metric series.
  const method = parseMethod(request.method) ?? 'OTHER';
  const dimensions: Array<Record<string, string>> = [
    { service, method, route: request.routeTemplate ?? 'NOT_FOUND' },
  ];
  if (metrics.dimensions !== undefined) dimensions.push({ service, ...metrics.dimensions });
  const builtin: MetricDatum[] = [
    { name: 'Latency', unit: 'Milliseconds', value: Math.round(latency * 1000) / 1000 },
    { name: 'Count', unit: 'Count', value: 1 },
    { name: '4XXError', unit: 'Count', value: status >= 400 && status < 500 ? 1 : 0 },
    { name: '5XXError', unit: 'Count', value: status >= 500 ? 1 : 0 },
  ];
  const properties: Record<string, unknown> = {
    ...metrics.properties,
    statusCode: status,
    path: request.path,
    requestId: request.requestId,
  };
  if (context?.awsRequestId !== undefined) properties.awsRequestId = context.awsRequestId;
  return {
    namespace: line.namespace,
    timestamp: Date.now(),
    dimensions,
    metrics: builtin.concat(metrics.metrics),
    properties,
    resolution: line.resolution,
  };
}

/** Hands `entry` to `publisher`; metrics never fail the request they describe. */
export async function publishEntry(
  publisher: MetricsPublisher,
  entry: MetricsEntry,
  logger: Logger,
): Promise<void> {
  try {
    await publisher.publish(entry);
  } catch (error) {
    logger.error('Publishing metrics failed', { requestId: entry.properties.requestId, error });
  }
}
