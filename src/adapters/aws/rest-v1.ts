/**
 * Payload format 1.0: API Gateway REST APIs, and HTTP APIs configured for 1.0.
 *
 * The two differ in one way that matters: a REST API passes `path` as the client sent it
 * (percent-encoding intact), while an HTTP API decodes it first and keeps a named stage in
 * front of it on its default endpoint. Both decode query values and send every header and
 * query value in `multiValueHeaders` / `multiValueQueryStringParameters`.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { DataRecord } from '../../http/data-record.js';
import type { Response } from '../../response.js';
import type { ResultBody } from './body.js';
import { encodeDecodedPath, sanitizeEncodedPath, stripPathPrefix } from './path.js';
import type { EventProcessor, ProcessorSettings, RequestParts } from './processor.js';
import {
  decodedQuery,
  eventHeaders,
  gatewayClientCert,
  gatewayPathParameters,
  httpApiStagePrefix,
  optionalObject,
  requiredString,
} from './request-parts.js';
import { forEachResultHeader } from './result-headers.js';

function payloadV1Processor(
  kind: 'rest-v1' | 'http-api-v1',
): EventProcessor<APIGatewayProxyEvent, APIGatewayProxyResult> {
  const label = kind === 'rest-v1' ? 'API Gateway REST (payload 1.0)' : 'HTTP API payload 1.0';
  return {
    kind,
    requestParts(event: APIGatewayProxyEvent, settings: ProcessorSettings): RequestParts {
      const method = requiredString(event.httpMethod, label, 'httpMethod');
      const requestContext = optionalObject(event.requestContext) ?? {};
      let path = requiredString(event.path, label, 'path');
      if (kind === 'http-api-v1') {
        path = encodeDecodedPath(stripPathPrefix(path, httpApiStagePrefix(requestContext)));
      } else {
        path = sanitizeEncodedPath(path);
      }
      const identity = optionalObject(requestContext.identity);
      const sourceIp = identity?.sourceIp;
      const requestId = requestContext.requestId;
      return {
        method,
        path: stripPathPrefix(path, settings.basePath),
        headers: eventHeaders(event.headers, event.multiValueHeaders),
        queryParams: decodedQuery(
          event.queryStringParameters,
          event.multiValueQueryStringParameters,
        ),
        pathParams: gatewayPathParameters(event.pathParameters),
        tls: true,
        protocol: 'https',
        clientCert: gatewayClientCert(
          identity?.clientCert as APIGatewayProxyEvent['requestContext']['identity']['clientCert'],
        ),
        remoteAddress: typeof sourceIp === 'string' ? sourceIp : undefined,
        requestId: typeof requestId === 'string' ? requestId : undefined,
        authorizer: optionalObject(requestContext.authorizer),
      };
    },
    result(response: Response, body: ResultBody, head: boolean): APIGatewayProxyResult {
      // A name with one value goes in `headers`, a repeated one (each Set-Cookie) in
      // `multiValueHeaders`, which is left out when there is none: API Gateway merges the two
      // maps. One map per name rather than both saves about 1,200 instructions per REST GET
      // event with five headers (bench/RESULTS.md). A `cookies` key would make the result a
      // "malformed Lambda proxy response". Data-only maps: `__proto__` is a name like any other.
      const headers = new DataRecord<string>();
      let multiValueHeaders: Record<string, string[]> | undefined;
      forEachResultHeader(response, body, head, (name, values) => {
        if (values.length === 1) {
          headers[name] = values[0] as string;
        } else {
          multiValueHeaders ??= new DataRecord<string[]>();
          multiValueHeaders[name] = values;
        }
      });
      const result: APIGatewayProxyResult = {
        statusCode: response.statusCode,
        headers,
        body: body.body,
        isBase64Encoded: body.isBase64Encoded,
      };
      if (multiValueHeaders !== undefined) result.multiValueHeaders = multiValueHeaders;
      return result;
    },
  };
}

/** API Gateway REST APIs (no `version` key): the path arrives still percent-encoded. */
export const restV1Processor = payloadV1Processor('rest-v1');

/** HTTP APIs with payload format 1.0 (`"version": "1.0"`): the path arrives decoded. */
export const httpApiV1Processor = payloadV1Processor('http-api-v1');
