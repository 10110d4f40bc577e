/**
 * The way out (SPEC §5.7 step 8): normalise the body, fill the headers it implies, answer a
 * matching conditional GET with 304, drop the body of a HEAD while keeping its headers.
 */
import { contentTypeFor } from '../http/content-types.js';
import { formatHttpDate, toHttpSeconds } from '../http/date.js';
import { weakMatch } from '../http/etag.js';
import { type Request, utf8Length } from '../request.js';
import { FileBody, isStream, type Response } from '../response.js';
import { HttpError } from './errors.js';

/** Statuses that never carry content (RFC 9110 §6.4.1). */
function forbidsContent(status: number): boolean {
  return status === 204 || status === 304 || status < 200;
}

function discard(body: unknown): void {
  if (body === null || typeof body !== 'object') return;
  const stream = body as { destroy?: () => void; cancel?: () => Promise<void> };
  if (typeof stream.destroy === 'function') stream.destroy();
  else if (typeof stream.cancel === 'function') stream.cancel().catch(() => undefined);
}

async function statFile(body: FileBody): Promise<{ size: number; mtime: Date }> {
  const { stat } = await import('node:fs/promises');
  const info = await stat(body.path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
    throw error;
  });
  // A file body whose file is missing is a 404, never a leak of the path in a 500.
  if (info === undefined || !info.isFile()) throw new HttpError(404);
  return { size: info.size, mtime: info.mtime };
}

/**
 * RFC 9110 §13.1.2 / §13.1.3 on the way out: a GET or HEAD whose response carries validators
 * that match If-None-Match (weak comparison) or, without If-None-Match, If-Modified-Since, is
 * answered 304 instead.
 */
function notModified(request: Request, response: Response): boolean {
  if (response.statusCode !== 200) return false;
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const headers = request.headers;
  const ifNoneMatch = headers.has('if-none-match') ? request.getIfNoneMatch() : undefined;
  if (ifNoneMatch !== undefined) {
    const etag = response.headers.get('etag');
    if (etag === undefined) return false;
    return ifNoneMatch.some((tag) => tag === '*' || weakMatch(tag, etag));
  }
  const since = request.getIfModifiedSince();
  if (since === undefined) return false;
  const lastModified = response.lastModified;
  if (lastModified === undefined) return false;
  return toHttpSeconds(lastModified) <= toHttpSeconds(since);
}

// RFC 9110 §15.4.5: a 304 carries the headers a 200 would have had among these.
const KEPT_ON_304 = ['cache-control', 'content-location', 'date', 'etag', 'expires', 'vary'];

function toNotModified(response: Response): void {
  discard(response.body);
  response.statusCode = 304;
  response.body = undefined;
  const kept = new Set(KEPT_ON_304);
  for (const name of [...response.headers.names()]) {
    const lower = name.toLowerCase();
    if (lower.startsWith('content-') || lower === 'transfer-encoding') {
      if (!kept.has(lower)) response.headers.delete(name);
    }
  }
}

/** Completes `response` for sending; returns it. */
export async function finalizeResponse(
  response: Response,
  request: Request,
  head: boolean,
): Promise<Response> {
  response.request ??= request;
  const headers = response.headers;
  if (response.preCalculatedHeaders !== undefined) {
    for (const name of response.preCalculatedHeaders.names()) {
      if (!headers.has(name)) headers.set(name, response.preCalculatedHeaders.getAll(name));
    }
  }
  let body = response.body;
  let length: number | undefined;
  if (body === null || body === undefined) {
    body = undefined;
  } else if (typeof body === 'string') {
    length = utf8Length(body);
    if (response.contentType === undefined && !headers.has('content-type')) {
      response.contentType = 'text/plain; charset=utf-8';
    }
  } else if (body instanceof Uint8Array) {
    length = body.length;
    if (response.contentType === undefined && !headers.has('content-type')) {
      response.contentType = 'application/octet-stream';
    }
  } else if (body instanceof ArrayBuffer) {
    body = new Uint8Array(body);
    length = body.length;
    response.contentType ??= 'application/octet-stream';
  } else if (body instanceof FileBody) {
    const info = await statFile(body);
    body.size = info.size;
    length = info.size;
    response.contentType ??= contentTypeFor(body.path);
    if (response.lastModified === undefined && !headers.has('last-modified')) {
      response.setLastModified(info.mtime);
    }
  } else if (isStream(body)) {
    // Streamed as it comes; the length is unknown.
  } else if (typeof body === 'object') {
    body = JSON.stringify(body);
    length = utf8Length(body);
    response.contentType ??= 'application/json';
  } else {
    body = String(body);
    length = utf8Length(body);
    response.contentType ??= 'text/plain; charset=utf-8';
  }
  response.body = body;
  if (response.contentType !== undefined && !headers.has('content-type')) {
    headers.set('Content-Type', response.contentType);
  }
  if (response.etag !== undefined && !headers.has('etag')) headers.set('ETag', response.etag);
  if (response.lastModified !== undefined && !headers.has('last-modified')) {
    headers.set('Last-Modified', formatHttpDate(response.lastModified));
  }
  if (request.requestId !== undefined && !headers.has('x-request-id')) {
    headers.set('X-Request-ID', request.requestId);
  }
  if (notModified(request, response)) {
    toNotModified(response);
    return response;
  }
  if (forbidsContent(response.statusCode)) {
    discard(response.body);
    response.body = undefined;
    headers.delete('content-length');
    return response;
  }
  if (length !== undefined && !headers.has('content-length')) headers.set('Content-Length', length);
  else if (body === undefined && !headers.has('content-length')) headers.set('Content-Length', 0);
  if (head) {
    // HEAD keeps every header of the GET, Content-Length included, and sends no content.
    discard(response.body);
    response.body = undefined;
  }
  return response;
}
