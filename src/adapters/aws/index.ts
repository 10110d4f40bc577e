/**
 * restmachine/aws: run a RestApplication on AWS Lambda behind API Gateway REST (payload 1.0),
 * HTTP APIs (1.0 and 2.0), Function URLs and Application Load Balancers, with CloudWatch
 * Embedded Metric Format metrics.
 *
 * @example
 * import { CloudGatewayAdapter } from 'restmachine/aws';
 * export const handler = new CloudGatewayAdapter(app).handler;
 */
export { AwsApiGatewayAdapter, CloudGatewayAdapter } from './adapter.js';
export type { GatewayEventErrorCode } from './errors.js';
export { GatewayEventError } from './errors.js';
export type {
  ALBEvent,
  ALBResult,
  APIGatewayEventClientCertificate,
  APIGatewayEventDefaultAuthorizerContext,
  APIGatewayEventIdentity,
  APIGatewayEventRequestContext,
  APIGatewayEventRequestContextV2,
  APIGatewayProxyEvent,
  APIGatewayProxyEventHeaders,
  APIGatewayProxyEventMultiValueHeaders,
  APIGatewayProxyEventMultiValueQueryStringParameters,
  APIGatewayProxyEventPathParameters,
  APIGatewayProxyEventQueryStringParameters,
  APIGatewayProxyEventStageVariables,
  APIGatewayProxyEventV2,
  APIGatewayProxyResult,
  APIGatewayProxyStructuredResultV2,
  EventKind,
  GatewayEvent,
  GatewayResult,
  LambdaContext,
  LambdaFunctionURLEvent,
} from './events.js';
export type { EmfDocument, EmfMetricsPublisherOptions } from './metrics/emf.js';
export { EmfMetricsPublisher, toEmfDocument } from './metrics/emf.js';
export type { MetricDatum, MetricsEntry, MetricsPublisher, MetricUnit } from './metrics/entry.js';
export { METRIC_UNITS } from './metrics/entry.js';
export type { CloudGatewayAdapterOptions, GatewayHandler } from './options.js';
export { DEFAULT_METRICS_PUBLISHER } from './options.js';
export type {
  AwsLambdaGlobal,
  HttpResponsePrelude,
  LambdaResponseStream,
  StreamingHandler,
} from './stream-response.js';
