/**
 * One invocation's metrics line: the names API Gateway itself uses (`Latency`, `Count`,
 * `4XXError`, `5XXError`), one dimension set `[service, method, route]`, and what the handler
 * added through the injectable `metrics` (docs/aws-lambda.md, "Metrics").
 */
import type { Logger } from '../../../app/logger.js';
import { SetupError } from '../../../errors.js';
import { parseMethod } from '../../../http/methods.js';
import type { Request } from '../../../request.js';
import type { Response } from '../../../response.js';
import type { LambdaContext as Context } from '../events.js';
import type { MetricDatum, MetricsEntry, MetricsPublisher } from './entry.js';
import { type InvocationMetrics, isDimensionText } from './recorder.js';

/** What every line of one adapter shares. */
export interface MetricsLine {
  namespace: string;
  /** The `service` dimension; the function's name when unset. */
  serviceName: string | undefined;
  resolution: 1 | 60;
}

/**
 * Checks the namespace and service name an adapter resolved (from its options or the
 * environment) against what CloudWatch accepts, so a bad one fails at start-up rather than
 * dropping every line (docs/aws-lambda.md, "Metrics").
 */
export function checkMetricsLine({ namespace, serviceName }: MetricsLine): void {
  if (
    typeof namespace !== 'string' ||
    namespace.length > 255 ||
    !isDimensionText(namespace) ||
    namespace.startsWith(':') ||
    namespace.startsWith('AWS/')
  ) {
    throw new SetupError(
      'INVALID_OPTION',
      `namespace must be 1 to 255 printable ASCII characters, not all spaces, not starting with ":" or "AWS/" (reserved for AWS services), got ${JSON.stringify(namespace)}`,
    );
  }
  if (
    serviceName !== undefined &&
    (typeof serviceName !== 'string' || serviceName.length > 1024 || !isDimensionText(serviceName))
  ) {
    throw new SetupError(
      'INVALID_OPTION',
      `serviceName must be 1 to 1024 printable ASCII characters, not all spaces, got ${JSON.stringify(serviceName)}`,
    );
  }
}

/** What one invocation contributes. */
export interface InvocationOutcome {
  request: Pick<Request, 'method' | 'path' | 'requestId' | 'routeTemplate'>;
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
    { service, method, route: routeDimension(request.routeTemplate) },
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

const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/;
const UTF8 = new TextEncoder();
// CloudWatch's longest dimension value (its `Dimension` type: 1 to 1,024 characters).
const MAX_DIMENSION_VALUE = 1024;

/**
 * The `route` dimension: the matched template, `NOT_FOUND`, or `STARTUP_FAILED` (set by the
 * adapter). CloudWatch takes printable ASCII
 * only in dimension values, so any other character of a template (`/café/{x}`) is written as the
 * percent-encoded bytes of its UTF-8 form (`/caf%C3%A9/{x}`), as a URL would carry it; the value
 * stays readable and one template still gives one series. A value over 1,024 characters, which
 * CloudWatch would refuse with the whole line, is cut to 1,024, never inside an escape
 * (docs/aws-lambda.md, "Metrics").
 */
function routeDimension(template: string | undefined): string {
  if (template === undefined) return 'NOT_FOUND';
  if (template.length <= MAX_DIMENSION_VALUE && !NOT_PRINTABLE_ASCII.test(template)) {
    return template;
  }
  let route = '';
  for (const character of template) {
    if (!NOT_PRINTABLE_ASCII.test(character)) {
      route += character;
      continue;
    }
    for (const byte of UTF8.encode(character)) {
      route += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  if (route.length <= MAX_DIMENSION_VALUE) return route;
  // An escape is three characters: one starting in the last two would be cut short.
  const lastPercent = route.lastIndexOf('%', MAX_DIMENSION_VALUE - 1);
  return route.slice(0, lastPercent > MAX_DIMENSION_VALUE - 3 ? lastPercent : MAX_DIMENSION_VALUE);
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

/** Writes the line of an invocation whose response is known, and closes its recorder. */
export async function publishInvocation(
  publisher: MetricsPublisher,
  line: MetricsLine,
  logger: Logger,
  metrics: InvocationMetrics,
  request: Request,
  response: Response,
  start: number,
  context: Context | undefined,
): Promise<void> {
  const entry = invocationEntry(line, metrics, {
    request,
    status: response.statusCode,
    latency: performance.now() - start,
    context,
  });
  metrics.close();
  await publishEntry(publisher, entry, logger);
}
