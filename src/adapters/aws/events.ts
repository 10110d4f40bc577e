/**
 * The Lambda event and result shapes this adapter speaks, named as `@types/aws-lambda` names
 * them and declared here, so that the published declarations import nothing from an optional
 * peer: a project type-checks `restmachine/aws` with `skipLibCheck: false` whether or not it
 * installs `@types/aws-lambda`. The shapes follow AWS's payload documentation and
 * `@types/aws-lambda` field for field (its `any` are `unknown` here), so its events are
 * accepted as they are.
 */

/** Header, parameter and stage-variable maps of API Gateway and ALB events. */
export interface APIGatewayProxyEventHeaders {
  [name: string]: string | undefined;
}
export interface APIGatewayProxyEventMultiValueHeaders {
  [name: string]: string[] | undefined;
}
export interface APIGatewayProxyEventPathParameters {
  [name: string]: string | undefined;
}
export interface APIGatewayProxyEventQueryStringParameters {
  [name: string]: string | undefined;
}
export interface APIGatewayProxyEventMultiValueQueryStringParameters {
  [name: string]: string[] | undefined;
}
export interface APIGatewayProxyEventStageVariables {
  [name: string]: string | undefined;
}

/** The client certificate of a mutual-TLS custom domain. */
export interface APIGatewayEventClientCertificate {
  clientCertPem: string;
  serialNumber: string;
  subjectDN: string;
  issuerDN: string;
  validity: { notAfter: string; notBefore: string };
}

/** `requestContext.identity` of a payload 1.0 event. */
export interface APIGatewayEventIdentity {
  accessKey: string | null;
  accountId: string | null;
  apiKey: string | null;
  apiKeyId: string | null;
  caller: string | null;
  clientCert: APIGatewayEventClientCertificate | null;
  cognitoAuthenticationProvider: string | null;
  cognitoAuthenticationType: string | null;
  cognitoIdentityId: string | null;
  cognitoIdentityPoolId: string | null;
  principalOrgId: string | null;
  sourceIp: string;
  user: string | null;
  userAgent: string | null;
  userArn: string | null;
  vpcId?: string | undefined;
  vpceId?: string | undefined;
}

/** What an authorizer put in a payload 1.0 event, when there is one. */
export type APIGatewayEventDefaultAuthorizerContext =
  | undefined
  | null
  // Any object: an authorizer's own interface (a Cognito user pool's `{ claims }`) has no index
  // signature, so a record type would refuse the events typed with it.
  | object;

/** `requestContext` of a payload 1.0 event (REST APIs, HTTP APIs in 1.0 mode). */
export interface APIGatewayEventRequestContext {
  accountId: string;
  apiId: string;
  authorizer: APIGatewayEventDefaultAuthorizerContext;
  connectedAt?: number | undefined;
  connectionId?: string | undefined;
  domainName?: string | undefined;
  domainPrefix?: string | undefined;
  eventType?: string | undefined;
  extendedRequestId?: string | undefined;
  protocol: string;
  httpMethod: string;
  identity: APIGatewayEventIdentity;
  messageDirection?: string | undefined;
  messageId?: string | null | undefined;
  path: string;
  stage: string;
  requestId: string;
  requestTime?: string | undefined;
  requestTimeEpoch: number;
  resourceId: string;
  resourcePath: string;
  routeKey?: string | undefined;
}

/** A REST API (or HTTP API payload 1.0) proxy event. */
export interface APIGatewayProxyEvent {
  body: string | null;
  headers: APIGatewayProxyEventHeaders;
  multiValueHeaders: APIGatewayProxyEventMultiValueHeaders;
  httpMethod: string;
  isBase64Encoded: boolean;
  path: string;
  pathParameters: APIGatewayProxyEventPathParameters | null;
  queryStringParameters: APIGatewayProxyEventQueryStringParameters | null;
  multiValueQueryStringParameters: APIGatewayProxyEventMultiValueQueryStringParameters | null;
  stageVariables: APIGatewayProxyEventStageVariables | null;
  requestContext: APIGatewayEventRequestContext;
  resource: string;
}

/** The result of a payload 1.0 integration. */
export interface APIGatewayProxyResult {
  statusCode: number;
  headers?: { [header: string]: boolean | number | string } | undefined;
  multiValueHeaders?: { [header: string]: Array<boolean | number | string> } | undefined;
  body: string;
  isBase64Encoded?: boolean | undefined;
}

/** `requestContext` of an HTTP API payload 2.0 or Function URL event. */
export interface APIGatewayEventRequestContextV2 {
  accountId: string;
  apiId: string;
  authentication?: { clientCert: APIGatewayEventClientCertificate };
  domainName: string;
  domainPrefix: string;
  http: {
    method: string;
    path: string;
    protocol: string;
    sourceIp: string;
    userAgent: string;
  };
  requestId: string;
  routeKey: string;
  stage: string;
  time: string;
  timeEpoch: number;
}

/** An HTTP API payload 2.0 event (Function URLs send the same shape). */
export interface APIGatewayProxyEventV2 {
  version: string;
  routeKey: string;
  rawPath: string;
  rawQueryString: string;
  cookies?: string[];
  headers: APIGatewayProxyEventHeaders;
  queryStringParameters?: APIGatewayProxyEventQueryStringParameters;
  requestContext: APIGatewayEventRequestContextV2;
  body?: string;
  pathParameters?: APIGatewayProxyEventPathParameters;
  isBase64Encoded: boolean;
  stageVariables?: APIGatewayProxyEventStageVariables;
}

/** A Lambda Function URL event: the payload 2.0 shape. */
export type LambdaFunctionURLEvent = APIGatewayProxyEventV2;

/** The structured result of a payload 2.0 integration or a Function URL. */
export interface APIGatewayProxyStructuredResultV2 {
  statusCode?: number | undefined;
  headers?: { [header: string]: boolean | number | string } | undefined;
  body?: string | undefined;
  isBase64Encoded?: boolean | undefined;
  cookies?: string[] | undefined;
}

/** An Application Load Balancer event (single- or multi-value headers, per target group). */
export interface ALBEvent {
  requestContext: { elb: { targetGroupArn: string } };
  httpMethod: string;
  path: string;
  queryStringParameters?: { [name: string]: string | undefined } | undefined;
  headers?: { [name: string]: string | undefined } | undefined;
  multiValueQueryStringParameters?: { [name: string]: string[] | undefined } | undefined;
  multiValueHeaders?: { [name: string]: string[] | undefined } | undefined;
  body: string | null;
  isBase64Encoded: boolean;
}

/** The result of an ALB target. */
export interface ALBResult {
  statusCode: number;
  statusDescription?: string | undefined;
  headers?: { [header: string]: boolean | number | string } | undefined;
  multiValueHeaders?: { [header: string]: Array<boolean | number | string> } | undefined;
  body?: string | undefined;
  isBase64Encoded?: boolean | undefined;
}

export type { LambdaContext } from '../../lambda-context.js';

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
