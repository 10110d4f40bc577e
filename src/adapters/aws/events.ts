/**
 * The Lambda event and result shapes this adapter speaks, as `@types/aws-lambda` names them.
 */
import type {
  ALBEvent,
  ALBResult,
  APIGatewayProxyEvent,
  APIGatewayProxyEventV2,
  APIGatewayProxyResult,
  APIGatewayProxyStructuredResultV2,
  Context,
  LambdaFunctionURLEvent,
} from 'aws-lambda';

export type {
  ALBEvent,
  ALBResult,
  APIGatewayProxyEvent,
  APIGatewayProxyEventV2,
  APIGatewayProxyResult,
  APIGatewayProxyStructuredResultV2,
  Context as LambdaContext,
  LambdaFunctionURLEvent,
};

/** Every event the adapter accepts: REST / HTTP API 1.0, HTTP API 2.0 and Function URLs, ALB. */
export type GatewayEvent = APIGatewayProxyEvent | APIGatewayProxyEventV2 | ALBEvent;

/** Every result the adapter returns, in the shape of the integration the event came from. */
export type GatewayResult = APIGatewayProxyResult | APIGatewayProxyStructuredResultV2 | ALBResult;

/**
 * Which integration sent an event. The kinds differ in what they decode before the function
 * runs and in which result keys they accept, so each has its own processor.
 */
export type EventKind =
  | 'rest-v1'
  | 'http-api-v1'
  | 'http-api-v2'
  | 'function-url'
  | 'alb'
  | 'alb-multi-value';
