/**
 * Payload format 2.0: HTTP APIs and Lambda Function URLs.
 *
 * An HTTP API hands over `rawPath` already percent-decoded (a client's `%2F` arrives as `/`)
 * and, on its default endpoint, with a named stage in front; a Function URL keeps the path as
 * sent. Both send cookies in a separate `cookies` array and join repeated headers with commas;
 * `rawQueryString` is the query as sent, the only place repeated keys survive unambiguously
 * (`queryStringParameters` joins them with commas).
 */
import type {
  APIGatewayEventClientCertificate,
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
} from 'aws-lambda';
import { DataRecord, ownEntry } from '../../http/data-record.js';
import { asciiKey } from '../../http/header-names.js';
import { MultiValueHeaders } from '../../http/headers.js';
import type { Response } from '../../response.js';
import type { ResultBody } from './body.js';
import { encodeDecodedPath, sanitizeEncodedPath, stripPathPrefix } from './path.js';
import type { EventProcessor, ProcessorSettings, RequestParts } from './processor.js';
import {
  decodedQuery,
  gatewayClientCert,
  gatewayPathParameters,
  httpApiStagePrefix,
  optionalObject,
  requiredString,
} from './request-parts.js';
import { forEachResultHeader } from './result-headers.js';

/**
 * Request headers plus the `cookies` array as one `Cookie` header (RFC 6265 §5.4 joins cookie
 * pairs with `; `). When `cookies` is there, a `cookie` entry in `headers` carries the same
 * pairs, so it is left out rather than sent twice.
 */
function v2Headers(event: APIGatewayProxyEventV2): MultiValueHeaders {
  const pairs: string[] = [];
  const cookies =
    Array.isArray(event.cookies) && event.cookies.length > 0 ? event.cookies : undefined;
  const headers = event.headers;
  if (headers !== null && headers !== undefined && typeof headers === 'object') {
    for (const name in headers) {
      if (!ownEntry(headers, name)) continue;
      const value = headers[name];
      if (typeof value !== 'string') continue;
      if (cookies !== undefined && asciiKey(name) === 'cookie') continue;
      pairs.push(name, value);
    }
  }
  if (cookies !== undefined) {
    pairs.push('cookie', cookies.filter((cookie) => typeof cookie === 'string').join('; '));
  }
  return MultiValueHeaders.fromRawPairs(pairs, true);
}

function payloadV2Processor(
  kind: 'http-api-v2' | 'function-url',
): EventProcessor<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  const label = kind === 'function-url' ? 'Function URL' : 'HTTP API payload 2.0';
  return {
    kind,
    requestParts(event: APIGatewayProxyEventV2, settings: ProcessorSettings): RequestParts {
      const requestContext = optionalObject(event.requestContext);
      const http = optionalObject(requestContext?.http);
      const method = requiredString(http?.method, label, 'requestContext.http.method');
      let path = requiredString(event.rawPath, label, 'rawPath');
      if (kind === 'function-url') path = sanitizeEncodedPath(path);
      else
        path = encodeDecodedPath(stripPathPrefix(path, httpApiStagePrefix(requestContext ?? {})));
      const authentication = optionalObject(requestContext?.authentication);
      const sourceIp = http?.sourceIp;
      const requestId = requestContext?.requestId;
      return {
        method,
        path: stripPathPrefix(path, settings.basePath),
        headers: v2Headers(event),
        queryParams:
          typeof event.rawQueryString === 'string'
            ? event.rawQueryString
            : decodedQuery(event.queryStringParameters, undefined),
        pathParams: gatewayPathParameters(event.pathParameters),
        tls: true,
        protocol: 'https',
        clientCert: gatewayClientCert(
          authentication?.clientCert as APIGatewayEventClientCertificate | undefined,
        ),
        remoteAddress: typeof sourceIp === 'string' ? sourceIp : undefined,
        requestId: typeof requestId === 'string' ? requestId : undefined,
        authorizer: optionalObject(requestContext?.authorizer),
      };
    },
    result(response: Response, body: ResultBody, head: boolean): APIGatewayProxyStructuredResultV2 {
      // Set-Cookie goes in `cookies`, one entry each: joined with commas it would break at the
      // comma inside an Expires date. Other repeated headers may be joined (RFC 9110 §5.3).
      const headers = new DataRecord<string>(); // `__proto__` is a name like any other
      let cookies: string[] | undefined;
      forEachResultHeader(response, body, head, (name, values) => {
        if (name.length === 10 && name.toLowerCase() === 'set-cookie') {
          cookies ??= [];
          for (const value of values) cookies.push(value);
        } else {
          headers[name] = values.length === 1 ? (values[0] as string) : values.join(', ');
        }
      });
      const result: APIGatewayProxyStructuredResultV2 = {
        statusCode: response.statusCode,
        headers,
        body: body.body,
        isBase64Encoded: body.isBase64Encoded,
      };
      if (cookies !== undefined) result.cookies = cookies;
      return result;
    },
  };
}

/** HTTP APIs with payload format 2.0. */
export const httpApiV2Processor = payloadV2Processor('http-api-v2');

/** Lambda Function URLs (payload 2.0 on a `*.lambda-url.*.on.aws` domain). */
export const functionUrlProcessor = payloadV2Processor('function-url');
