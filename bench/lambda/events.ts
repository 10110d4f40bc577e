/**
 * Lambda events as API Gateway sends them (REST payload 1.0 and HTTP API payload 2.0), for a
 * GET with path parameters and a POST of a 1 KB JSON document, plus a Lambda context.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { ECHO_BODY, PARAMS_PATH, POST_ID, USER_ID } from '../lib/payload.js';

const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko)';
const CLIENT_IP = '203.0.113.7';

/**
 * An HTTP API (payload 2.0) event's headers: lower-case names, as API Gateway sends them there,
 * the client's and the X-Amzn-Trace-Id and X-Forwarded-* it adds.
 */
const HEADERS: Record<string, string> = {
  accept: 'application/json',
  'accept-encoding': 'gzip, deflate, br',
  host: 'abc123.execute-api.eu-west-1.amazonaws.com',
  'user-agent': USER_AGENT,
  'x-amzn-trace-id': 'Root=1-65a1b2c3-0123456789abcdef01234567',
  'x-forwarded-for': CLIENT_IP,
  'x-forwarded-port': '443',
  'x-forwarded-proto': 'https',
};

/**
 * A REST API (payload 1.0) event's headers, shaped as AWS's sample event of an edge-optimized REST
 * API (the default endpoint type): the names keep the client's casing (Title-Case here), and
 * CloudFront's and API Gateway's own are there (CloudFront-*, Via, X-Amz-Cf-Id, X-Amzn-Trace-Id,
 * X-Forwarded-For with the client's and the edge's address, X-Forwarded-Port and -Proto).
 * multiValueHeaders mirrors them.
 */
const REST_HEADERS: Record<string, string> = {
  Accept: 'application/json',
  'Accept-Encoding': 'gzip, deflate, br',
  'CloudFront-Forwarded-Proto': 'https',
  'CloudFront-Is-Desktop-Viewer': 'true',
  'CloudFront-Is-Mobile-Viewer': 'false',
  'CloudFront-Is-SmartTV-Viewer': 'false',
  'CloudFront-Is-Tablet-Viewer': 'false',
  'CloudFront-Viewer-Country': 'DE',
  Host: 'abc123.execute-api.eu-west-1.amazonaws.com',
  'User-Agent': USER_AGENT,
  Via: '2.0 5f3c1a2b4d6e8f0a1b2c3d4e5f6a7b8c.cloudfront.net (CloudFront)',
  'X-Amz-Cf-Id': 'q1Xg5k9ZbT2mHn4Rw7Yc0Ld3Fp6Sj8Ua1Ve4Gi7Ko0Mr3Nt6Pw9Q==',
  'X-Amzn-Trace-Id': 'Root=1-65a1b2c3-0123456789abcdef01234567',
  'X-Forwarded-For': `${CLIENT_IP}, 130.176.98.12`,
  'X-Forwarded-Port': '443',
  'X-Forwarded-Proto': 'https',
};

const TIME = '22/Nov/2026:10:00:00 +0000';
const EPOCH = 1795341600000;

function restEvent(
  method: string,
  path: string,
  resource: string,
  pathParameters: Record<string, string> | null,
  body: string | null,
  extraHeaders: Record<string, string> = {},
): APIGatewayProxyEvent {
  const headers = { ...REST_HEADERS, ...extraHeaders };
  return {
    resource,
    path,
    httpMethod: method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters,
    stageVariables: null,
    body,
    isBase64Encoded: false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      authorizer: null,
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc123',
      extendedRequestId: 'Xyz0AbCdEFGhIjk=',
      httpMethod: method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: CLIENT_IP,
        user: null,
        userAgent: USER_AGENT,
        userArn: null,
      },
      path: `/prod${path}`,
      protocol: 'HTTP/1.1',
      requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
      requestTime: TIME,
      requestTimeEpoch: EPOCH,
      resourceId: 'abcdef',
      resourcePath: resource,
      stage: 'prod',
    },
  };
}

function httpEvent(
  method: string,
  path: string,
  routeKey: string,
  pathParameters: Record<string, string> | undefined,
  body: string | undefined,
  extraHeaders: Record<string, string> = {},
): APIGatewayProxyEventV2 {
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: { ...HEADERS, ...extraHeaders },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: {
        method,
        path,
        protocol: 'HTTP/1.1',
        sourceIp: CLIENT_IP,
        userAgent: USER_AGENT,
      },
      requestId: 'JKJaXmPLvHcESHA=',
      routeKey,
      stage: '$default',
      time: TIME,
      timeEpoch: EPOCH,
    },
    isBase64Encoded: false,
  };
  if (pathParameters !== undefined) event.pathParameters = pathParameters;
  if (body !== undefined) event.body = body;
  return event;
}

const JSON_BODY_HEADERS = {
  'content-type': 'application/json',
  'content-length': String(Buffer.byteLength(ECHO_BODY)),
};
const REST_JSON_BODY_HEADERS = {
  'Content-Type': 'application/json',
  'Content-Length': String(Buffer.byteLength(ECHO_BODY)),
};

export type EventName = 'rest-get' | 'rest-post' | 'http-get' | 'http-post';

/** A fresh copy of each event (so a contender that mutates its event cannot affect another). */
export function makeEvents(): Record<EventName, APIGatewayProxyEvent | APIGatewayProxyEventV2> {
  const params = { id: USER_ID, postId: POST_ID };
  return {
    'rest-get': restEvent('GET', PARAMS_PATH, '/users/{id}/posts/{postId}', params, null),
    'rest-post': restEvent('POST', '/echo', '/echo', null, ECHO_BODY, REST_JSON_BODY_HEADERS),
    'http-get': httpEvent('GET', PARAMS_PATH, 'GET /users/{id}/posts/{postId}', params, undefined),
    'http-post': httpEvent('POST', '/echo', 'POST /echo', undefined, ECHO_BODY, JSON_BODY_HEADERS),
  };
}

export const EVENT_LABELS: Record<EventName, string> = {
  'rest-get': 'REST 1.0 GET /users/{id}/posts/{postId}',
  'rest-post': 'REST 1.0 POST /echo (1 KB JSON)',
  'http-get': 'HTTP API 2.0 GET /users/{id}/posts/{postId}',
  'http-post': 'HTTP API 2.0 POST /echo (1 KB JSON)',
};

export const CONTEXT: Context = {
  callbackWaitsForEmptyEventLoop: true,
  functionName: 'bench',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:bench',
  memoryLimitInMB: '1024',
  awsRequestId: '3f1c2d4e-5a6b-7c8d-9e0f-1a2b3c4d5e6f',
  logGroupName: '/aws/lambda/bench',
  logStreamName: '2026/11/22/[$LATEST]0123456789abcdef',
  getRemainingTimeInMillis: () => 30000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
};
