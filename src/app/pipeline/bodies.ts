/**
 * The request body's part in the pipeline: the limit a route reads it with, checked against a
 * declared Content-Length before anything is read (step 1), and a JSON body still on its way,
 * read whole before the handler's names (step 6) so that parsing it needs no promise.
 */
import { HttpError } from '../../errors.js';
import { MultiValueHeaders } from '../../http/headers.js';
import { bodyRead, type Request, recordBodyLimit } from '../../request.js';
import { JSON_MEDIA_TYPE } from '../inject/body-parsers.js';
import type { CompiledRoute } from '../routing/routing-table.js';
import { isMultipart, type MultipartLimits, multipartTotal } from '../uploads/limits.js';

/**
 * Records the body limit `route` reads `request` with, and refuses a declared Content-Length
 * over it (413). A route's own `bodyLimit()` replaces the application's; the multipart limits
 * of a route that takes uploads replace both for a multipart body, and are returned then.
 */
export function limitBody(
  request: Request,
  route: CompiledRoute,
  applicationLimit: number,
): MultipartLimits | undefined {
  const uploads =
    route.uploads !== undefined && isMultipart(request.headers.get('content-type'))
      ? route.uploads
      : undefined;
  const limit =
    uploads !== undefined
      ? multipartTotal(uploads)
      : ((route.route.settings.bodyLimit as number | undefined) ?? applicationLimit);
  if (limit !== applicationLimit) recordBodyLimit(request, limit);
  const declared = MultiValueHeaders.getLower(request.headers, 'content-length');
  if (declared !== undefined && Number(declared) > limit) {
    throw new HttpError(413, `Request body is larger than the limit of ${limit} bytes`);
  }
  return uploads;
}

/**
 * Whether `request` carries an `application/json` body (without parameters) still to be read:
 * a Node or Fetch request's stream, not a Lambda event's body, which is in memory already.
 */
export function jsonBodyUnread(request: Request): boolean {
  const body = request.body;
  return (
    body !== undefined &&
    typeof body !== 'string' &&
    !(body instanceof Uint8Array) &&
    bodyRead(request) === undefined &&
    MultiValueHeaders.getLower(request.headers, 'content-type') === JSON_MEDIA_TYPE
  );
}
