/**
 * Pieces every event processor shares when it builds a request.
 *
 * The runtime hands over events parsed by JSON.parse, so a client's `__proto__` query key or
 * header name arrives as an own property of the event's maps. Every map built here is a
 * DataRecord, where such a key stays an entry instead of replacing the prototype.
 */
import type { APIGatewayEventClientCertificate } from 'aws-lambda';
import { DataRecord, ownEntry } from '../../http/data-record.js';
import { MultiValueHeaders } from '../../http/headers.js';
import type { ClientCertificate } from '../../request.js';
import { distinguishedName } from './distinguished-name.js';
import { malformedEvent } from './errors.js';

type SingleValueMap = Readonly<Record<string, string | undefined>> | null | undefined;
type MultiValueMap = Readonly<Record<string, readonly string[] | undefined>> | null | undefined;

/**
 * Request headers from an event's maps, names listed in lower case. When the integration sends
 * `multiValueHeaders` it has every value of every header and is used alone; `headers` then
 * holds only the last value of each. `null` maps (API Gateway console tests) are empty. The
 * map is indexed only when a header is first read.
 */
export function eventHeaders(single: SingleValueMap, multi: MultiValueMap): MultiValueHeaders {
  const pairs: string[] = [];
  if (multi !== null && multi !== undefined && typeof multi === 'object') {
    for (const name in multi) {
      if (!ownEntry(multi, name)) continue;
      const values = multi[name];
      if (!Array.isArray(values)) continue;
      for (const value of values) if (typeof value === 'string') pairs.push(name, value);
    }
  } else if (single !== null && single !== undefined && typeof single === 'object') {
    for (const name in single) {
      if (!ownEntry(single, name)) continue;
      const value = single[name];
      if (typeof value === 'string') pairs.push(name, value);
    }
  }
  // Lower-cased only if listed: lookups ignore case (917 instructions fewer per REST GET event
  // with eight headers than lower-casing each name here, bench/RESULTS.md).
  return MultiValueHeaders.fromRawPairs(pairs, true);
}

/**
 * Query parameters an integration already decoded (API Gateway), every value of every key:
 * `multiValueQueryStringParameters` when present, else `queryStringParameters`.
 */
export function decodedQuery(
  single: SingleValueMap,
  multi: MultiValueMap,
): Record<string, string[]> | undefined {
  const out = new DataRecord<string[]>();
  let any = false;
  if (multi !== null && multi !== undefined && typeof multi === 'object') {
    for (const key in multi) {
      if (!ownEntry(multi, key)) continue;
      const values = multi[key];
      if (!Array.isArray(values)) continue;
      out[key] = values.filter((value) => typeof value === 'string');
      any = true;
    }
  } else if (single !== null && single !== undefined && typeof single === 'object') {
    for (const key in single) {
      if (!ownEntry(single, key)) continue;
      const value = single[key];
      if (typeof value !== 'string') continue;
      out[key] = [value];
      any = true;
    }
  }
  return any ? out : undefined;
}

/** The string field `value`, or a clear error naming it (never a TypeError further in). */
export function requiredString(value: unknown, kind: string, field: string): string {
  if (typeof value !== 'string' || value === '') throw malformedEvent(kind, field);
  return value;
}

/** An object-valued field, or undefined when absent, `null` or not an object. */
export function optionalObject(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object'
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * Path parameters the gateway matched, as they are: the Request copies their string values only
 * if something reads them before routing replaces them (with the Request's own copy, 1,353
 * instructions per REST GET event with path parameters, bench/RESULTS.md).
 */
export function gatewayPathParameters(
  value: SingleValueMap,
): Readonly<Record<string, string | undefined>> | undefined {
  return value !== null && typeof value === 'object' ? value : undefined;
}

/**
 * The client certificate API Gateway verified for mutual TLS (1.0
 * `requestContext.identity.clientCert`, 2.0 `requestContext.authentication.clientCert`), its
 * subject and issuer read from their RFC 4514 strings into the object Node gives.
 */
export function gatewayClientCert(
  cert: APIGatewayEventClientCertificate | null | undefined,
): ClientCertificate | undefined {
  if (cert === null || cert === undefined || typeof cert !== 'object') return undefined;
  return {
    subject: distinguishedName(cert.subjectDN),
    issuer: distinguishedName(cert.issuerDN),
    serialNumber: cert.serialNumber,
    validFrom: cert.validity?.notBefore,
    validTo: cert.validity?.notAfter,
    pem: cert.clientCertPem,
  };
}

/**
 * The stage segment an HTTP API puts in front of the path on its default
 * `execute-api` endpoint when the stage is not `$default`; custom domains never carry it.
 */
export function httpApiStagePrefix(requestContext: Record<string, unknown>): string {
  const stage = requestContext.stage;
  if (typeof stage !== 'string' || stage === '' || stage === '$default') return '';
  const domain = requestContext.domainName;
  if (typeof domain === 'string' && !domain.includes('.execute-api.')) return '';
  return `/${stage}`;
}
