/**
 * The options of `new CloudGatewayAdapter(app, options)` (docs/aws-lambda.md, "Options") and the
 * metrics settings they resolve to.
 */

import type { AnyLogger } from '../../app/logger.js';
import { knownOptions } from '../../app/options.js';
import { SetupError } from '../../errors.js';
import type {
  ALBEvent,
  ALBResult,
  APIGatewayProxyEvent,
  APIGatewayProxyEventV2,
  APIGatewayProxyResult,
  APIGatewayProxyStructuredResultV2,
  LambdaContext as Context,
  GatewayEvent,
  GatewayResult,
} from './events.js';
import { EmfMetricsPublisher } from './metrics/emf.js';
import type { MetricsPublisher } from './metrics/entry.js';
import { checkMetricsLine, type MetricsLine } from './metrics/invocation.js';

/**
 * The "default marker" for `metricsPublisher`: the Embedded Metric Format publisher on
 * stdout. Leaving the option out means the same.
 *
 * @example
 * new CloudGatewayAdapter(app, { metricsPublisher: DEFAULT_METRICS_PUBLISHER, metricsResolution: 1 });
 */
export const DEFAULT_METRICS_PUBLISHER: unique symbol = Symbol.for(
  'restmachine.aws.defaultMetricsPublisher',
);

/** Options of `new CloudGatewayAdapter(app, options)` (docs/aws-lambda.md, "Options"). */
export interface CloudGatewayAdapterOptions {
  /**
   * Where metrics go: the EMF publisher on stdout by default (or {@link DEFAULT_METRICS_PUBLISHER}),
   * any object with `publish(entry)`, or `null` for no metrics at all.
   */
  metricsPublisher?: MetricsPublisher | null | typeof DEFAULT_METRICS_PUBLISHER;
  /** `false` turns metrics off whatever the publisher; `true` or absent leaves them on. */
  enableMetrics?: boolean;
  /** CloudWatch namespace; else `RESTMACHINE_METRICS_NAMESPACE`, `POWERTOOLS_METRICS_NAMESPACE`, `restmachine`. */
  namespace?: string;
  /** The `service` dimension; else `RESTMACHINE_SERVICE_NAME`, `POWERTOOLS_SERVICE_NAME`, the function name. */
  serviceName?: string;
  /** Storage resolution in seconds: 60 (default) or 1 (high resolution). */
  metricsResolution?: 1 | 60;
  /**
   * A custom-domain base path mapping removed from every path before routing (`/api` makes
   * `/api/users` route as `/users`). Given as it appears in the URL.
   */
  basePath?: string;
  /**
   * The logger for the adapter's own lines (pino and Powertools' `Logger` as they are); the
   * application's by default.
   */
  logger?: AnyLogger;
}
const CLOUD_GATEWAY_ADAPTER_OPTIONS = Object.keys({
  metricsPublisher: true,
  enableMetrics: true,
  namespace: true,
  serviceName: true,
  metricsResolution: true,
  basePath: true,
  logger: true,
} satisfies Record<keyof CloudGatewayAdapterOptions, true>);

/**
 * A Lambda handler for every event kind the adapter accepts, with the result of each: so it is
 * an `APIGatewayProxyHandler`, an `APIGatewayProxyHandlerV2`, an `ALBHandler` or a
 * `LambdaFunctionURLHandler` of `@types/aws-lambda` where one is declared.
 */
export interface GatewayHandler {
  (event: APIGatewayProxyEvent, context?: Context): Promise<APIGatewayProxyResult>;
  (event: APIGatewayProxyEventV2, context?: Context): Promise<APIGatewayProxyStructuredResultV2>;
  (event: ALBEvent, context?: Context): Promise<ALBResult>;
  (event: GatewayEvent, context?: Context): Promise<GatewayResult>;
}

function envValue(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Where the invocation metrics go and the line they are filed under, from the options and the
 * environment; throws `INVALID_OPTION` for an option name the adapter does not know (checked
 * here, where the constructor first reads its options whole), and for a resolution or publisher
 * that cannot work.
 */
export function metricsSettings(options: CloudGatewayAdapterOptions): {
  publisher: MetricsPublisher | undefined;
  line: MetricsLine;
} {
  // A misspelt `basePath` would leave its prefix on every path; `enableMetric: false`, metrics on.
  knownOptions('new CloudGatewayAdapter()', options, CLOUD_GATEWAY_ADAPTER_OPTIONS);
  const resolution = options.metricsResolution ?? 60;
  if (resolution !== 1 && resolution !== 60) {
    throw new SetupError(
      'INVALID_OPTION',
      `metricsResolution must be 1 or 60 (seconds), got ${JSON.stringify(resolution)}`,
    );
  }
  const chosen = options.metricsPublisher;
  if (
    chosen !== undefined &&
    chosen !== null &&
    chosen !== DEFAULT_METRICS_PUBLISHER &&
    typeof (chosen as MetricsPublisher).publish !== 'function'
  ) {
    throw new SetupError(
      'INVALID_OPTION',
      'metricsPublisher must have a publish(entry) method, or be null',
    );
  }
  const publisher =
    options.enableMetrics === false || chosen === null
      ? undefined
      : chosen === undefined || chosen === DEFAULT_METRICS_PUBLISHER
        ? new EmfMetricsPublisher()
        : (chosen as MetricsPublisher);
  const namespace =
    options.namespace ??
    envValue('RESTMACHINE_METRICS_NAMESPACE') ??
    envValue('POWERTOOLS_METRICS_NAMESPACE') ??
    'restmachine';
  const serviceName =
    options.serviceName ??
    envValue('RESTMACHINE_SERVICE_NAME') ??
    envValue('POWERTOOLS_SERVICE_NAME') ??
    envValue('AWS_LAMBDA_FUNCTION_NAME');
  const line: MetricsLine = { namespace, serviceName, resolution };
  if (publisher !== undefined) checkMetricsLine(line);
  return { publisher, line };
}
