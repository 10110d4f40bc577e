/**
 * `new RestApplication({ validateResponses: true })`: in development, a handler's result is
 * checked against the schema its route's `returns()` declares for the status, before it is
 * rendered. A mismatch is a 500 (with the issues in its body in debug mode, and in the log
 * always). Compiled only for routes that declare responses, and only with the option on: other
 * routes, and every route without the option, run no step for it.
 */
import { HttpError, ISSUES_LISTED, libraryAnswer } from '../../errors.js';
import { isJsonMediaType, mediaTypeEssence } from '../../http/media-type.js';
import { Response } from '../../response.js';
import { dottedPath, type StandardSchemaV1 } from '../inject/validation.js';
import type { Logger } from '../logger.js';
import { isTuple } from '../representable.js';
import { DOCS_SETTING, type DocumentedResponse } from '../routing/route-docs.js';
import { isThenable } from '../thenable.js';

/** Checks one result of a route's handler; throws the 500, or returns a promise that does. */
export type ResultCheck = (result: unknown, requestId: string | undefined) => void | Promise<void>;

/** What the check needs from the application. */
export interface ResultCheckHost {
  readonly logger: Logger;
  readonly debug: boolean;
}

/**
 * The check for a route's results; `undefined` when the route declares no response (nothing
 * to check against).
 */
export function compileResultCheck(
  settings: Readonly<Record<string, unknown>>,
  label: string,
  host: ResultCheckHost,
): ResultCheck | undefined {
  const declared = settings[DOCS_SETTING.returns] as
    | ReadonlyMap<number, DocumentedResponse>
    | undefined;
  if (declared === undefined) return undefined;
  // A route that documents no successful status leaves its handler's own answers undocumented
  // (docs/openapi.md): those are not checked, so they cannot fail.
  const documentsSuccess = [...declared.keys()].some((status) => status < 400);
  const fail = (status: number, message: string, issues: unknown, requestId?: string) => {
    host.logger.error(`${label}: the response does not match returns(${status}): ${message}`, {
      requestId,
      issues,
    });
    throw libraryAnswer(
      new HttpError(
        500,
        'The response does not match its declaration',
        host.debug ? { status, message, issues } : undefined,
      ),
    );
  };
  return (result, requestId) => {
    let status = result === undefined || result === null ? 204 : 200;
    let body = result;
    if (isTuple(result)) [body, status] = result;
    if (body instanceof Response) {
      status = body.statusCode;
      body = sentValue(body);
    }
    const declaration = declared.get(status);
    if (declaration === undefined) {
      if (documentsSuccess) fail(status, `status ${status} is not declared`, [], requestId);
      return;
    }
    const schema: StandardSchemaV1 | undefined = declaration.schema;
    // Bytes, streams and files are sent as they are: there is no value to check.
    if (schema === undefined || !isValue(body)) return;
    const outcome = schema['~standard'].validate(body);
    const report = (checked: StandardSchemaV1.Result<unknown>) => {
      if (checked.issues === undefined) {
        // Valid input is not enough: what is sent must be the schema's output, which the
        // document and the typed client describe (a field with a default always there, a
        // transformed value in its new form).
        const differs = firstDifference(checked.value, sentJson(body), []);
        if (differs === undefined) return;
        const issue = { path: dottedPath(differs.path), message: differs.message };
        fail(status, '1 issue(s)', [issue], requestId);
        return;
      }
      // The log line and the debug body list the first ones, as a 422 does.
      const issues = checked.issues.slice(0, ISSUES_LISTED).map((issue) => ({
        path: dottedPath(issue.path),
        message: issue.message,
      }));
      fail(status, `${checked.issues.length} issue(s)`, issues, requestId);
    };
    if (isThenable(outcome)) return outcome.then(report);
    report(outcome);
  };
}

/**
 * What a `Response` sends, as a value to check: text in a JSON type (what `Response.json()`
 * makes) is the value it spells; any other body is checked as it is, so text that is not JSON
 * fails an object schema as it should.
 */
function sentValue(response: Response): unknown {
  const body = response.body;
  if (typeof body !== 'string') return body;
  const type = response.contentType ?? response.headers.get('content-type');
  if (!isJsonMediaType(mediaTypeEssence(type))) return body;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/**
 * `body` as the JSON it is sent as: class instances (an ORM row, a DTO) are the plain objects
 * they serialise to, a `toJSON()` its result. A value JSON cannot hold is taken as it is.
 */
function sentJson(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return body;
  try {
    return JSON.parse(JSON.stringify(body));
  } catch {
    return body;
  }
}

/**
 * Where the value sent departs from the schema's output for it: a key the output has and the
 * value lacks (a default), or a different plain value (a transform). Keys the output drops are
 * not departures (a schema may strip unknown keys), and objects other than plain ones and
 * arrays (a Date) are taken as they are.
 */
function firstDifference(
  output: unknown,
  sent: unknown,
  path: PropertyKey[],
): { path: PropertyKey[]; message: string } | undefined {
  if (Object.is(output, sent)) return undefined;
  if (Array.isArray(output)) {
    if (!Array.isArray(sent) || sent.length !== output.length) {
      return { path, message: 'differs from the output of its schema' };
    }
    for (let i = 0; i < output.length; i++) {
      const found = firstDifference(output[i], sent[i], [...path, i]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (isPlainObject(output)) {
    if (!isPlainObject(sent)) return { path, message: 'differs from the output of its schema' };
    for (const key of Object.keys(output)) {
      if (!Object.hasOwn(sent, key)) {
        if (output[key] === undefined) continue;
        return {
          path: [...path, key],
          message:
            'is missing: the output of its schema has it (a default?), and so do the document and the typed client',
        };
      }
      const found = firstDifference(output[key], sent[key], [...path, key]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof output === 'object' && output !== null) return undefined;
  return {
    path,
    message: 'differs from the output of its schema (a transform?), which the document describes',
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null)
  );
}

/** A value a renderer would serialise: not bytes, a stream or a file. */
function isValue(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return true;
  return Array.isArray(body) || Object.getPrototypeOf(body) === Object.prototype;
}
