/**
 * Lambda events as each integration builds them from an HTTP request, and readers that check a
 * result has exactly the shape its integration accepts. Shapes follow the AWS documentation's
 * examples and are checked against `@types/aws-lambda`.
 */
import { Buffer } from 'node:buffer';
import type {
  ALBEvent,
  ALBResult,
  APIGatewayProxyEvent,
  APIGatewayProxyEventV2,
  APIGatewayProxyResult,
  APIGatewayProxyStructuredResultV2,
  Context,
} from 'aws-lambda';
import { MultiValueHeaders } from '../../../src/index.js';

/** An HTTP request as a client sends it: the target keeps its percent-encoding. */
export interface WireRequest {
  method: string;
  /** Path and optional query, as sent (`/users/a%20b?x=1&x=2`). */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Uint8Array;
}

/** What a reader gives back from a result. */
export interface WireResponse {
  status: number;
  headers: MultiValueHeaders;
  body: Uint8Array;
}

function pushTo(map: Record<string, string[]>, key: string, value: string): void {
  const values = map[key];
  if (values === undefined) map[key] = [value];
  else values.push(value);
}

let sequence = 0;
function nextId(): string {
  sequence += 1;
  return `c6af9ac6-7b61-11e6-9a41-${String(sequence).padStart(12, '0')}`;
}

/** A Lambda context as the Node runtime passes it. */
export function lambdaContext(overrides: Partial<Context> = {}): Context {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'users-api',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:users-api',
    memoryLimitInMB: '512',
    awsRequestId: `a1b2c3d4-${nextId()}`,
    logGroupName: '/aws/lambda/users-api',
    logStreamName: '2025/01/15/[$LATEST]4f2d6a1c0b9e4c8f8a7d6e5f4c3b2a19',
    getRemainingTimeInMillis: () => 29_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
    ...overrides,
  };
}

function splitTarget(target: string): { path: string; query: string } {
  const question = target.indexOf('?');
  return question === -1
    ? { path: target, query: '' }
    : { path: target.slice(0, question), query: target.slice(question + 1) };
}

function headerEntries(headers: WireRequest['headers']): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) out.push([name, item]);
  }
  return out;
}

function withBodyHeaders(request: WireRequest): Array<[string, string]> {
  const entries = headerEntries(request.headers);
  if (
    request.body !== undefined &&
    !entries.some(([name]) => name.toLowerCase() === 'content-length')
  ) {
    const length =
      typeof request.body === 'string' ? Buffer.byteLength(request.body) : request.body.length;
    entries.push(['content-length', String(length)]);
  }
  return entries;
}

/** Form decoding, as API Gateway applies to query values (`+` is a space). */
function formDecode(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

function queryPairs(query: string): Array<[string, string]> {
  if (query === '') return [];
  return query
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const eq = part.indexOf('=');
      return eq === -1 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)];
    });
}

/** The path as an HTTP API hands it over: percent-decoded (a malformed escape stays as sent). */
export function gatewayDecodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function encodeBody(
  body: WireRequest['body'],
  forceBase64 = false,
): { body: string | null; isBase64Encoded: boolean } {
  if (body === undefined) return { body: null, isBase64Encoded: false };
  if (typeof body === 'string') {
    return forceBase64
      ? { body: Buffer.from(body).toString('base64'), isBase64Encoded: true }
      : { body, isBase64Encoded: false };
  }
  return { body: Buffer.from(body).toString('base64'), isBase64Encoded: true };
}

const API_ID = 'a1b2c3d4e5';
const REST_DOMAIN = `${API_ID}.execute-api.us-east-1.amazonaws.com`;

/** Options of the payload 1.0 builders. */
export interface RestEventOptions {
  /** `'1.0'` makes it an HTTP API payload 1.0 event (path decoded); absent, a REST API event. */
  version?: '1.0';
  stage?: string;
  domainName?: string;
  sourceIp?: string;
  authorizer?: Record<string, unknown> | null;
  clientCert?: APIGatewayProxyEvent['requestContext']['identity']['clientCert'];
}

/** A REST API (or HTTP API payload 1.0) proxy event for `request`. */
export function restEvent(
  request: WireRequest,
  options: RestEventOptions = {},
): APIGatewayProxyEvent {
  const { path, query } = splitTarget(request.path);
  const httpApi = options.version === '1.0';
  const stage = options.stage ?? (httpApi ? '$default' : 'prod');
  const domainName = options.domainName ?? REST_DOMAIN;
  const headers: Record<string, string> = {
    Host: domainName,
    'User-Agent': 'curl/8.5.0',
    'X-Amzn-Trace-Id': 'Root=1-65a4f1c2-5b1e0d7a3f2c4e6a8b9c0d1e',
    'X-Forwarded-For': options.sourceIp ?? '198.51.100.7',
    'X-Forwarded-Port': '443',
    'X-Forwarded-Proto': 'https',
  };
  const multiValueHeaders: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) multiValueHeaders[name] = [value];
  for (const [name, value] of withBodyHeaders(request)) {
    const existing = multiValueHeaders[name];
    if (existing === undefined) multiValueHeaders[name] = [value];
    else existing.push(value);
    headers[name] = value; // `headers` keeps the last value of a repeated header
  }
  const pairs = queryPairs(query);
  let single: Record<string, string> | null = null;
  let multi: Record<string, string[]> | null = null;
  for (const [rawKey, rawValue] of pairs) {
    const key = formDecode(rawKey);
    const value = formDecode(rawValue);
    single ??= {};
    multi ??= {};
    single[key] = value;
    pushTo(multi, key, value);
  }
  const routedPath = httpApi ? gatewayDecodedPath(path) : path;
  const eventPath = httpApi && stage !== '$default' ? `/${stage}${routedPath}` : routedPath;
  const requestId = nextId();
  return {
    ...(httpApi ? { version: '1.0' } : {}),
    resource: '/{proxy+}',
    path: eventPath,
    httpMethod: request.method,
    headers,
    multiValueHeaders,
    queryStringParameters: single,
    multiValueQueryStringParameters: multi,
    pathParameters: { proxy: routedPath.replace(/^\//, '') },
    stageVariables: null,
    requestContext: {
      accountId: '123456789012',
      apiId: API_ID,
      authorizer: options.authorizer ?? null,
      domainName,
      domainPrefix: API_ID,
      extendedRequestId: 'Rf3kXGVjoAMEZcQ=',
      httpMethod: request.method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: options.clientCert ?? null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: options.sourceIp ?? '198.51.100.7',
        user: null,
        userAgent: 'curl/8.5.0',
        userArn: null,
      },
      path: httpApi ? eventPath : `/${stage}${path}`,
      protocol: 'HTTP/1.1',
      requestId,
      requestTime: '15/Jan/2025:10:12:30 +0000',
      requestTimeEpoch: 1736935950000,
      resourceId: 'abcdef',
      resourcePath: '/{proxy+}',
      stage,
    },
    ...encodeBody(request.body),
  } as APIGatewayProxyEvent;
}

/**
 * The event the API Gateway console's "Test" button sends: every map `null`, a placeholder
 * identity.
 */
export function consoleTestEvent(method: string, path: string): APIGatewayProxyEvent {
  return {
    resource: path,
    path,
    httpMethod: method,
    headers: null,
    multiValueHeaders: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    requestContext: {
      resourceId: 'abcdef',
      resourcePath: path,
      httpMethod: method,
      extendedRequestId: 'test-invoke-extendedRequestId',
      requestTime: '15/Jan/2025:10:12:30 +0000',
      path,
      accountId: '123456789012',
      protocol: 'HTTP/1.1',
      stage: 'test-invoke-stage',
      domainPrefix: 'testPrefix',
      requestTimeEpoch: 1736935950000,
      requestId: 'test-invoke-request',
      identity: {
        cognitoIdentityPoolId: null,
        cognitoIdentityId: null,
        apiKey: 'test-invoke-api-key',
        principalOrgId: null,
        cognitoAuthenticationType: null,
        userArn: 'arn:aws:iam::123456789012:user/tester',
        apiKeyId: 'test-invoke-api-key-id',
        userAgent: 'aws-internal/3 aws-sdk-java/1.12.0',
        accountId: '123456789012',
        caller: 'AIDAEXAMPLE',
        sourceIp: 'test-invoke-source-ip',
        accessKey: 'ASIAEXAMPLE',
        cognitoAuthenticationProvider: null,
        user: 'AIDAEXAMPLE',
        clientCert: null,
      },
      domainName: 'testPrefix.testDomainName',
      apiId: API_ID,
      authorizer: null,
    },
    body: null,
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEvent;
}

/** Options of the payload 2.0 builders. */
export interface V2EventOptions {
  /** A Function URL event (path as sent) instead of an HTTP API one (path decoded). */
  functionUrl?: boolean;
  stage?: string;
  domainName?: string;
  authorizer?: Record<string, unknown>;
  clientCert?: NonNullable<
    APIGatewayProxyEventV2['requestContext']['authentication']
  >['clientCert'];
  /** Keep the `cookie` header in `headers` too (some proxies and test tools do). */
  cookieHeaderToo?: boolean;
  /** Base64-encode a text body as well (Function URLs do so for form posts). */
  base64Text?: boolean;
}

/** An HTTP API payload 2.0 (or Function URL) event for `request`. */
export function v2Event(
  request: WireRequest,
  options: V2EventOptions = {},
): APIGatewayProxyEventV2 {
  const { path, query } = splitTarget(request.path);
  const functionUrl = options.functionUrl === true;
  const stage = options.stage ?? '$default';
  const domainName =
    options.domainName ??
    (functionUrl ? 'abcdefghij1234567890klmnop.lambda-url.us-east-1.on.aws' : REST_DOMAIN);
  const headers: Record<string, string> = {
    host: domainName,
    'user-agent': 'curl/8.5.0',
    'x-amzn-trace-id': 'Root=1-65a4f1c2-5b1e0d7a3f2c4e6a8b9c0d1e',
    'x-forwarded-for': '198.51.100.7',
    'x-forwarded-port': '443',
    'x-forwarded-proto': 'https',
  };
  let cookies: string[] | undefined;
  for (const [name, value] of withBodyHeaders(request)) {
    const lower = name.toLowerCase();
    if (lower === 'cookie') {
      cookies ??= [];
      cookies.push(...value.split(/;\s*/).filter((part) => part !== ''));
      if (options.cookieHeaderToo !== true) continue;
    }
    // Repeated headers arrive joined with commas.
    headers[lower] = headers[lower] === undefined ? value : `${headers[lower]},${value}`;
  }
  let queryStringParameters: Record<string, string> | undefined;
  for (const [rawKey, rawValue] of queryPairs(query)) {
    const key = formDecode(rawKey);
    const value = formDecode(rawValue);
    queryStringParameters ??= {};
    // Repeated keys are joined with commas: ambiguous, which is why rawQueryString exists.
    queryStringParameters[key] =
      queryStringParameters[key] === undefined ? value : `${queryStringParameters[key]},${value}`;
  }
  const routed = functionUrl ? path : gatewayDecodedPath(path);
  // A named stage prefixes the path on the default endpoint only; custom domains map it away.
  const rawPath =
    stage === '$default' || !domainName.includes('.execute-api.') ? routed : `/${stage}${routed}`;
  const requestId = nextId();
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: functionUrl ? '$default' : 'ANY /{proxy+}',
    rawPath,
    rawQueryString: query,
    headers,
    requestContext: {
      accountId: functionUrl ? 'anonymous' : '123456789012',
      apiId: functionUrl ? 'abcdefghij1234567890klmnop' : API_ID,
      domainName,
      domainPrefix: domainName.split('.')[0] as string,
      http: {
        method: request.method,
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: '198.51.100.7',
        userAgent: 'curl/8.5.0',
      },
      requestId,
      routeKey: functionUrl ? '$default' : 'ANY /{proxy+}',
      stage,
      time: '15/Jan/2025:10:12:30 +0000',
      timeEpoch: 1736935950000,
    },
    isBase64Encoded: false,
  };
  if (cookies !== undefined) event.cookies = cookies;
  if (queryStringParameters !== undefined) event.queryStringParameters = queryStringParameters;
  if (!functionUrl) event.pathParameters = { proxy: routed.replace(/^\//, '') };
  if (options.authorizer !== undefined) {
    (event.requestContext as unknown as Record<string, unknown>).authorizer = options.authorizer;
  }
  if (options.clientCert !== undefined)
    event.requestContext.authentication = { clientCert: options.clientCert };
  const encoded = encodeBody(request.body, options.base64Text === true);
  if (encoded.body !== null) event.body = encoded.body;
  event.isBase64Encoded = encoded.isBase64Encoded;
  return event;
}

/** Options of the ALB builder. */
export interface AlbEventOptions {
  multiValue?: boolean;
  /** `https` (default) or `http`, as the listener's protocol. */
  proto?: 'http' | 'https';
  /** Extra headers ALB itself adds (mutual TLS, say). */
  extraHeaders?: Record<string, string>;
}

/** An ALB event for `request`: path and query as sent, single- or multi-value mode. */
export function albEvent(request: WireRequest, options: AlbEventOptions = {}): ALBEvent {
  const { path, query } = splitTarget(request.path);
  const proto = options.proto ?? 'https';
  const entries: Array<[string, string]> = [
    ['host', 'internal-users-alb-1234567890.us-east-1.elb.amazonaws.com'],
    ['user-agent', 'curl/8.5.0'],
    ['x-amzn-trace-id', 'Root=1-65a4f1c2-5b1e0d7a3f2c4e6a8b9c0d1e'],
    ['x-forwarded-for', '198.51.100.7'],
    ['x-forwarded-port', proto === 'https' ? '443' : '80'],
    ['x-forwarded-proto', proto],
    ...Object.entries(options.extraHeaders ?? {}),
    ...withBodyHeaders(request).map(([name, value]): [string, string] => [
      name.toLowerCase(),
      value,
    ]),
  ];
  const hasEncoding = entries.some(([name]) => name === 'content-encoding');
  // ALB base64-encodes binary bodies and any body with a Content-Encoding.
  const encoded = encodeBody(request.body, hasEncoding);
  const event: ALBEvent = {
    requestContext: {
      elb: {
        targetGroupArn:
          'arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/users-api/49e9d65c45c6791a',
      },
    },
    httpMethod: request.method,
    path,
    body: encoded.body ?? '',
    isBase64Encoded: encoded.isBase64Encoded,
  };
  const pairs = queryPairs(query);
  if (options.multiValue === true) {
    const multiValueHeaders: Record<string, string[]> = {};
    for (const [name, value] of entries) pushTo(multiValueHeaders, name, value);
    const multiQuery: Record<string, string[]> = {};
    for (const [key, value] of pairs) pushTo(multiQuery, key, value);
    event.multiValueHeaders = multiValueHeaders;
    event.multiValueQueryStringParameters = multiQuery;
  } else {
    const headers: Record<string, string> = {};
    for (const [name, value] of entries) headers[name] = value; // the last value wins
    const single: Record<string, string> = {};
    for (const [key, value] of pairs) single[key] = value;
    event.headers = headers;
    event.queryStringParameters = single;
  }
  return event;
}

function checkKeys(result: object, allowed: readonly string[], kind: string): void {
  for (const key of Object.keys(result)) {
    if (!allowed.includes(key))
      throw new Error(`${kind} result has a key its integration rejects: ${key}`);
  }
}

function resultBody(result: {
  body?: string | undefined;
  isBase64Encoded?: boolean | undefined;
}): Uint8Array {
  const body = result.body ?? '';
  return result.isBase64Encoded === true
    ? new Uint8Array(Buffer.from(body, 'base64'))
    : new TextEncoder().encode(body);
}

/** Reads a payload 1.0 result as API Gateway does: `multiValueHeaders` merged with `headers`. */
export function readV1Result(result: APIGatewayProxyResult): WireResponse {
  checkKeys(
    result,
    ['statusCode', 'headers', 'multiValueHeaders', 'body', 'isBase64Encoded'],
    'Payload 1.0',
  );
  if (typeof result.body !== 'string') throw new Error('Payload 1.0 result needs a string body');
  const headers = new MultiValueHeaders();
  const multi = result.multiValueHeaders ?? {};
  for (const [name, values] of Object.entries(multi))
    for (const value of values) headers.add(name, String(value));
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    // A pair present in both maps is sent once; anything else in `headers` is added.
    const listed = Object.entries(multi).find(
      ([key]) => key.toLowerCase() === name.toLowerCase(),
    )?.[1];
    if (listed?.map(String).includes(String(value))) continue;
    headers.add(name, String(value));
  }
  return { status: result.statusCode, headers, body: resultBody(result) };
}

/** Reads a payload 2.0 result as an HTTP API does: `cookies` become Set-Cookie headers. */
export function readV2Result(result: APIGatewayProxyStructuredResultV2): WireResponse {
  checkKeys(result, ['statusCode', 'headers', 'body', 'isBase64Encoded', 'cookies'], 'Payload 2.0');
  const headers = new MultiValueHeaders();
  for (const [name, value] of Object.entries(result.headers ?? {}))
    headers.add(name, String(value));
  for (const cookie of result.cookies ?? []) headers.add('Set-Cookie', cookie);
  return { status: result.statusCode ?? 200, headers, body: resultBody(result) };
}

/** Reads an ALB result, failing the way ALB does (502) when the header shape is the wrong one. */
export function readAlbResult(result: ALBResult, multiValue: boolean): WireResponse {
  checkKeys(
    result,
    ['statusCode', 'statusDescription', 'headers', 'multiValueHeaders', 'body', 'isBase64Encoded'],
    'ALB',
  );
  if (multiValue && (result.multiValueHeaders === undefined || result.headers !== undefined)) {
    throw new Error('ALB multi-value mode needs multiValueHeaders and no headers');
  }
  if (!multiValue && (result.headers === undefined || result.multiValueHeaders !== undefined)) {
    throw new Error('ALB single-value mode needs headers and no multiValueHeaders');
  }
  if (!result.statusDescription?.startsWith(`${result.statusCode} `)) {
    throw new Error(
      `ALB statusDescription must start with the status: ${result.statusDescription}`,
    );
  }
  const headers = new MultiValueHeaders();
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    for (const value of values) headers.add(name, String(value));
  }
  for (const [name, value] of Object.entries(result.headers ?? {}))
    headers.add(name, String(value));
  return { status: result.statusCode, headers, body: resultBody(result) };
}

/** One line a {@link captureLogger} recorded. */
export interface LoggedLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields: Record<string, unknown> | undefined;
}

/** A logger that keeps its lines for assertions. */
export function captureLogger(): {
  logger: import('../../../src/index.js').Logger;
  lines: LoggedLine[];
} {
  const lines: LoggedLine[] = [];
  const at =
    (level: LoggedLine['level']) =>
    (message: string, fields?: Record<string, unknown>): void => {
      lines.push({ level, message, fields });
    };
  return {
    logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
    lines,
  };
}
