/**
 * `new RestApplication({ validateResponses: true })`: in development, a handler's result is
 * checked against the schema its route's `returns()` declares for the status, before it is
 * rendered. A mismatch is a 500 (with the issues in its body in debug mode, and in the log
 * always). Compiled only for routes that declare responses, and only with the option on: other
 * routes, and every route without the option, run no step for it.
 */
import { HttpError, libraryAnswer } from '../../errors.js';
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
      body = body.body;
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
      if (checked.issues === undefined) return;
      const issues = checked.issues.map((issue) => ({
        path: dottedPath(issue.path),
        message: issue.message,
      }));
      fail(status, `${issues.length} issue(s)`, issues, requestId);
    };
    if (isThenable(outcome)) return outcome.then(report);
    report(outcome);
  };
}

/** A value a renderer would serialise: not bytes, a stream or a file. */
function isValue(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return true;
  return Array.isArray(body) || Object.getPrototypeOf(body) === Object.prototype;
}
