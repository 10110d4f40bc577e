/**
 * The built-in names a function can inject (docs/application.md, "Dependency injection by
 * name") and the getters of those every route can read.
 */

import { decodeUtf8Octets, NOT_ASCII } from '../../http/octet-text.js';
import type { MetricsRecorder } from '../../request.js';
import { type Logger, withFields } from '../logger.js';
import { readJsonBody, refuseContentCoding } from './body-parsers.js';
import { checkDimension, checkMetric, checkProperty } from './metrics-check.js';
import { type Getter, type RequestState, requestNonce } from './request-state.js';
import { injectedSignal } from './signal.js';

// Where no adapter records metrics (off Lambda, or with metrics off), each call is still
// checked, so a mistake shows in development rather than once metrics are on.
const NOOP_METRICS: MetricsRecorder = {
  addMetric: checkMetric,
  addDimension: checkDimension,
  addProperty: checkProperty,
};

/**
 * The id an `EventSource` sends back: the last event id it received, which it sends encoded as
 * UTF-8 (HTML standard, "Server-sent events", §9.2.4), so an id `sse()` wrote as `été` comes back
 * as `été`, not as its octets.
 */
function lastEventId(header: string | undefined): string | undefined {
  return header !== undefined && NOT_ASCII.test(header) ? decodeUtf8Octets(header) : header;
}

/** What the built-in getters need from the application: its logger, for `log`. */
interface BuiltinHost {
  readonly logger: Logger;
}

function requestLogger(host: BuiltinHost, state: RequestState): Logger {
  state.log ??= withFields(host.logger, { requestId: state.request.requestId });
  return state.log;
}

/** The getters of the built-in names (docs/application.md, "Dependency injection by name"). */
export function builtinGetter(name: string, host: BuiltinHost): Getter | undefined {
  switch (name) {
    case 'request':
      return (s) => s.request;
    case 'pathParams':
      return (s) => s.request.pathParams;
    case 'queryParams':
      return (s) => s.request.queryParams;
    case 'queryParamsAll':
      return (s) => s.request.queryParamsAll;
    case 'headers':
      return (s) => s.request.headers;
    case 'body':
      return (s) => {
        refuseContentCoding(s.request);
        return s.request.text();
      };
    case 'jsonBody':
      return (s) => readJsonBody(s.request);
    case 'cookies':
      return (s) => s.request.cookies;
    case 'requestId':
      return (s) => s.request.requestId;
    case 'cspNonce':
      return requestNonce;
    case 'log':
      return (s) => requestLogger(host, s);
    case 'lambdaEvent':
      return (s) => s.request.context.lambdaEvent;
    case 'lambdaContext':
      return (s) => s.request.context.lambdaContext;
    case 'authorizer':
      return (s) => s.request.context.authorizer;
    case 'metrics':
      return (s) => s.request.context.metrics ?? NOOP_METRICS;
    case 'fetchEnv':
      return (s) => s.request.context.fetchEnv;
    case 'fetchContext':
      return (s) => s.request.context.fetchContext;
    case 'signal':
      return injectedSignal;
    case 'lastEventId':
      return (s) => lastEventId(s.request.headers.get('last-event-id'));
    case 'mediaType':
      return (s) => (s.chosen === undefined ? undefined : `${s.chosen.type}/${s.chosen.subtype}`);
    default:
      return undefined;
  }
}

/**
 * Every built-in name, including the ones only renderers (`result`), error handlers (`error`)
 * and `onResponse` hooks (`response`, `elapsedMs`) get.
 */
export const BUILTIN_NAMES: ReadonlySet<string> = new Set([
  'request',
  'pathParams',
  'queryParams',
  'queryParamsAll',
  'headers',
  'body',
  'jsonBody',
  'formBody',
  'files',
  'parts',
  'parsedBody',
  'cookies',
  'requestId',
  'cspNonce',
  'log',
  'lambdaEvent',
  'lambdaContext',
  'authorizer',
  'metrics',
  'fetchEnv',
  'fetchContext',
  'signal',
  'lastEventId',
  'mediaType',
  'result',
  'error',
  'response',
  'elapsedMs',
]);

// Names given only where they make sense, as extras: a renderer's result, an error handler's
// error, an `onResponse` hook's response and time taken.
const GIVEN_WHERE_THEY_APPLY: ReadonlySet<string> = new Set([
  'result',
  'error',
  'response',
  'elapsedMs',
]);

/** Whether `name` is a built-in every route's functions can inject. */
export function isRouteBuiltin(name: string): boolean {
  return BUILTIN_NAMES.has(name) && !GIVEN_WHERE_THEY_APPLY.has(name);
}
