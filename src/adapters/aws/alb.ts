/**
 * Application Load Balancer events, in single-value and multi-value mode.
 *
 * ALB passes the path and the query as the client sent them: query keys and values stay
 * percent-encoded (and `+` means a space, as in any form-encoded query), so they are decoded
 * here exactly once. Multi-value mode is a target-group setting; a request that came in it
 * must be answered with `multiValueHeaders`, and one that did not with `headers`: ALB answers
 * 502 for the other shape. On the way in each multi-value map is used whenever it is present,
 * headers and query independently: it is the one that holds every value, and an event that
 * carries one multi-value map but not the other (a test tool's, a hand-built one) must not lose
 * repeated query keys.
 */
import type { ALBEvent, ALBResult } from 'aws-lambda';
import { DataRecord, ownEntry } from '../../http/data-record.js';
import { reasonPhrase } from '../../http/status.js';
import type { ClientCertificate } from '../../request.js';
import type { Response } from '../../response.js';
import type { ResultBody } from './body.js';
import { distinguishedName } from './distinguished-name.js';
import { sanitizeEncodedPath, stripPathPrefix } from './path.js';
import type { EventProcessor, ProcessorSettings, RequestParts } from './processor.js';
import { eventHeaders, requiredString } from './request-parts.js';
import { forEachResultHeader } from './result-headers.js';

type HeaderLookup = (name: string) => string | undefined;

function isMap(value: unknown): value is object {
  return value !== null && value !== undefined && typeof value === 'object';
}

function headerLookup(event: ALBEvent): HeaderLookup {
  // ALB lower-cases header names; reading the event's own map avoids indexing every header.
  const multi = event.multiValueHeaders;
  if (isMap(multi)) {
    return (name) => {
      const values = multi[name];
      return Array.isArray(values) ? values[values.length - 1] : undefined;
    };
  }
  const map = event.headers ?? {};
  return (name) => {
    const value = map[name];
    return typeof value === 'string' ? value : undefined;
  };
}

/** The query as sent, rebuilt from the still-encoded keys and values ALB passes on. */
function rawQuery(event: ALBEvent): string {
  let query = '';
  const multi = event.multiValueQueryStringParameters;
  if (isMap(multi)) {
    for (const key in multi) {
      if (!ownEntry(multi, key)) continue;
      const values = multi[key];
      if (!Array.isArray(values)) continue;
      for (const value of values) query += `${query === '' ? '' : '&'}${key}=${value}`;
    }
    return query;
  }
  const map = event.queryStringParameters;
  if (!isMap(map)) return '';
  for (const key in map) {
    if (!ownEntry(map, key)) continue;
    const value = map[key];
    if (typeof value === 'string') query += `${query === '' ? '' : '&'}${key}=${value}`;
  }
  return query;
}

function decodeHeaderValue(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * The client certificate from ALB's mutual TLS headers: verify mode sends the parsed fields and
 * the leaf (`verified: true`), subject and issuer as RFC 4514 strings, read into the object Node
 * gives; passthrough mode sends the whole chain unverified. ALB adds these
 * only on listeners with mutual TLS, so they are read only for HTTPS requests; an application
 * behind a listener without mutual TLS should not rely on `clientCert`.
 */
function albClientCert(header: HeaderLookup): ClientCertificate | undefined {
  const leaf = header('x-amzn-mtls-clientcert-leaf');
  const subject = header('x-amzn-mtls-clientcert-subject');
  if (leaf !== undefined || subject !== undefined) {
    const cert: ClientCertificate = { verified: true };
    const subjectName = distinguishedName(subject);
    if (subjectName !== undefined) cert.subject = subjectName;
    const issuer = distinguishedName(header('x-amzn-mtls-clientcert-issuer'));
    if (issuer !== undefined) cert.issuer = issuer;
    const serial = header('x-amzn-mtls-clientcert-serial-number');
    if (serial !== undefined) cert.serialNumber = serial;
    // `NotBefore=2023-09-21T01:50:17Z;NotAfter=2024-09-20T01:50:17Z`
    const validity = header('x-amzn-mtls-clientcert-validity');
    if (validity !== undefined) {
      for (const part of validity.split(';')) {
        const [key, value] = part.split('=', 2) as [string, string | undefined];
        if (value === undefined) continue;
        if (key.trim() === 'NotBefore') cert.validFrom = value.trim();
        else if (key.trim() === 'NotAfter') cert.validTo = value.trim();
      }
    }
    if (leaf !== undefined) cert.pem = decodeHeaderValue(leaf);
    return cert;
  }
  const chain = header('x-amzn-mtls-clientcert');
  if (chain === undefined) return undefined;
  return { verified: false, pem: decodeHeaderValue(chain) };
}

function albProcessor(multiValue: boolean): EventProcessor<ALBEvent, ALBResult> {
  const kind = multiValue ? 'alb-multi-value' : 'alb';
  const label = multiValue ? 'ALB (multi-value)' : 'ALB';
  return {
    kind,
    requestParts(event: ALBEvent, settings: ProcessorSettings): RequestParts {
      const method = requiredString(event.httpMethod, label, 'httpMethod');
      const path = sanitizeEncodedPath(requiredString(event.path, label, 'path'));
      const header = headerLookup(event);
      // ALB sets X-Forwarded-Proto and appends the client's address as the last entry of
      // X-Forwarded-For; entries before it are whatever the client claimed.
      const tls = header('x-forwarded-proto') === 'https';
      const forwardedFor = header('x-forwarded-for');
      const comma = forwardedFor?.lastIndexOf(',') ?? -1;
      return {
        method,
        path: stripPathPrefix(path, settings.basePath),
        headers: eventHeaders(event.headers, event.multiValueHeaders),
        queryParams: rawQuery(event),
        tls,
        protocol: tls ? 'https' : 'http',
        clientCert: tls ? albClientCert(header) : undefined,
        remoteAddress:
          forwardedFor === undefined ? undefined : forwardedFor.slice(comma + 1).trim(),
        requestId: undefined,
        authorizer: undefined,
      };
    },
    result(
      response: Response,
      body: ResultBody,
      head: boolean,
      settings: ProcessorSettings,
    ): ALBResult {
      const status = response.statusCode;
      const result: ALBResult = {
        statusCode: status,
        statusDescription: `${status} ${reasonPhrase(status)}`,
      };
      if (multiValue) {
        // Data-only maps: a header named `__proto__` is a header like any other.
        const multiValueHeaders = new DataRecord<string[]>();
        forEachResultHeader(response, body, head, (name, values) => {
          multiValueHeaders[name] = values;
        });
        result.multiValueHeaders = multiValueHeaders;
      } else {
        const headers = new DataRecord<string>();
        forEachResultHeader(response, body, head, (name, values) => {
          if (name.length === 10 && name.toLowerCase() === 'set-cookie') {
            // Single-value mode has room for one Set-Cookie; cookies cannot be
            // joined with commas (RFC 6265 §3), so the first is sent and the loss reported.
            headers[name] = values[0] as string;
            if (values.length > 1)
              settings.droppedCookies(values.length, response.request?.requestId);
          } else {
            headers[name] = values.length === 1 ? (values[0] as string) : values.join(', ');
          }
        });
        result.headers = headers;
      }
      result.body = body.body;
      result.isBase64Encoded = body.isBase64Encoded;
      return result;
    },
  };
}

/** ALB target groups without multi-value headers. */
export const albSingleValueProcessor = albProcessor(false);

/** ALB target groups with multi-value headers enabled. */
export const albMultiValueProcessor = albProcessor(true);
