/**
 * What an S3 error means to the client: the status it maps to, and the words the log gives it.
 */

interface S3ErrorShape {
  name?: string;
  Code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
  $response?: { headers?: Record<string, string | undefined> };
}

function shapeOf(error: unknown): S3ErrorShape {
  return (typeof error === 'object' && error !== null ? error : {}) as S3ErrorShape;
}

// By error code first (the table in docs/static-files.md): the code says what happened even
// behind a proxy that changes statuses. A bucket that does not exist is a deployment mistake, so
// it is a 500 (logged), not a 404 that would hide it.
const STATUS_BY_CODE: Record<string, number> = {
  NoSuchKey: 404,
  NotFound: 404,
  AccessDenied: 403,
  Forbidden: 403,
  NotModified: 304,
  PreconditionFailed: 412,
  InvalidRange: 416,
  NoSuchBucket: 500,
};
// Without a known code (HEAD answers have no body; moto's policy denials carry none) the HTTP
// status decides, for the statuses that mean something to the client.
const PASSED_STATUSES = new Set([304, 403, 404, 412, 416]);

/** The status an S3 error maps to: 304/403/404/412/416, or 500 for anything else. */
export function s3ErrorStatus(error: unknown): number {
  const shape = shapeOf(error);
  const code = shape.Code ?? shape.name;
  if (code !== undefined && Object.hasOwn(STATUS_BY_CODE, code)) {
    return STATUS_BY_CODE[code] as number;
  }
  const status = shape.$metadata?.httpStatusCode;
  return status !== undefined && PASSED_STATUSES.has(status) ? status : 500;
}

/** A header of the HTTP answer an S3 error came with. */
export function responseHeader(error: unknown, name: string): string | undefined {
  return shapeOf(error).$response?.headers?.[name];
}

/** An S3 error in one line for the log: its code, HTTP status and message. */
export function describeS3Error(error: unknown): string {
  const shape = shapeOf(error);
  const code = shape.Code ?? shape.name ?? 'unknown error';
  const status = shape.$metadata?.httpStatusCode;
  return `${code}${status === undefined ? '' : ` (HTTP ${status})`}: ${shape.message ?? String(error)}`;
}
