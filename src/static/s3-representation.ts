/**
 * What an S3 object's answer becomes: its representation (type, validators, caching) and the
 * 200 or 206 response that carries it.
 */
import type { GetObjectCommandOutput, HeadObjectCommandOutput } from '@aws-sdk/client-s3';
import { contentTypeFor, OCTET_STREAM } from '../http/content-types.js';
import type { Response, ResponseBody } from '../response.js';
import type { Precompressed } from './encoding.js';
import { cacheControlFor, type ResolvedOptions } from './options.js';
import { fileResponse, type Representation, representationHeaders } from './respond.js';

/** A served key's response, or why it was not found. */
export type Outcome =
  | { kind: 'response'; response: Response }
  | { kind: 'missing'; status: 403 | 404 };

const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+)$/;

/** The object as the response describes it, `size` bytes long. */
export function objectRepresentation(
  options: ResolvedOptions,
  relative: string,
  output: GetObjectCommandOutput | HeadObjectCommandOutput,
  size: number,
  variant: Precompressed | undefined,
): Representation {
  let contentType = contentTypeFor(relative);
  const stored = output.ContentType;
  // The extension table decides; an object without a known extension keeps the type it was
  // uploaded with, unless that is only S3's own default.
  if (
    contentType === OCTET_STREAM &&
    stored !== undefined &&
    stored !== 'binary/octet-stream' &&
    !/[\r\n\0]/.test(stored)
  ) {
    contentType = stored;
  }
  return {
    size,
    etag: output.ETag,
    lastModified: output.LastModified,
    contentType,
    contentEncoding: variant?.coding ?? output.ContentEncoding,
    cacheControl: cacheControlFor(options, relative, output.CacheControl),
    varyEncoding: options.precompressed,
  };
}

/** The 200, or the 206 when S3 answered with a Content-Range, carrying `body`. */
export function successOutcome(
  options: ResolvedOptions,
  relative: string,
  output: GetObjectCommandOutput | HeadObjectCommandOutput,
  body: ResponseBody,
  variant: Precompressed | undefined,
): Outcome {
  const length = output.ContentLength ?? 0;
  const partial =
    output.ContentRange !== undefined ? CONTENT_RANGE.exec(output.ContentRange) : null;
  if (partial !== null) {
    const [, start, end, total] = partial as unknown as [string, string, string, string];
    const representation = objectRepresentation(options, relative, output, Number(total), variant);
    return {
      kind: 'response',
      response: fileResponse(representation, representationHeaders(representation), body, {
        start: Number(start),
        end: Number(end),
      }),
    };
  }
  const representation = objectRepresentation(options, relative, output, length, variant);
  return {
    kind: 'response',
    response: fileResponse(representation, representationHeaders(representation), body),
  };
}
