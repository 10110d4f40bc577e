/**
 * Turning a handler's result into a Response: tuples (SPEC §17.5), negotiation among renderers
 * (SPEC §5.5, §17.9, §17.17) and the built-in JSON, HTML and text renderers.
 */
import type { MultiValueHeaders } from '../../http/headers.js';
import { type MediaType, parseMediaType } from '../../http/media-type.js';
import { FileBody, Response, type ResponseBody } from '../../response.js';
import type { Getter } from '../inject/getters.js';

/** A renderer as the pipeline uses it: its media type and how to call it. */
export interface CompiledRenderer extends MediaType {
  /** The Content-Type to send, e.g. `text/html; charset=utf-8`. */
  contentType: string;
  builtin: ((result: unknown) => string) | undefined;
  names: readonly string[];
  getters: readonly Getter[];
  fn: Function | undefined;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

function asText(result: unknown): string {
  return typeof result === 'string' ? result : (JSON.stringify(result) ?? '');
}

/** The built-in renderers, in the server's default order (SPEC §17.9). */
export const BUILTIN_RENDERERS: ReadonlyArray<{
  mediaType: string;
  contentType: string;
  render: (result: unknown) => string;
}> = [
  {
    mediaType: 'application/json',
    contentType: 'application/json',
    render: (result) => JSON.stringify(result) ?? 'null',
  },
  {
    mediaType: 'text/html',
    contentType: 'text/html; charset=utf-8',
    render: (result) =>
      typeof result === 'string'
        ? escapeHtml(result)
        : `<!DOCTYPE html><html><body><pre>${escapeHtml(JSON.stringify(result, null, 2) ?? '')}</pre></body></html>`,
  },
  {
    mediaType: 'text/plain',
    contentType: 'text/plain; charset=utf-8',
    render: asText,
  },
];

/** Parses a media type given to `provides()`; the Content-Type sent is the type as given. */
export function rendererMediaType(mediaType: string): MediaType {
  const parsed = parseMediaType(mediaType);
  if (parsed === undefined) throw new TypeError(`Invalid media type ${JSON.stringify(mediaType)}`);
  return parsed;
}

/** A `[body, status]` or `[body, status, headers]` tuple (SPEC §17.5). */
export function isTuple(value: unknown): value is [unknown, number, unknown?] {
  if (!Array.isArray(value) || (value.length !== 2 && value.length !== 3)) return false;
  const status = value[1];
  if (!Number.isInteger(status) || status < 100 || status > 599) return false;
  if (value.length === 3) {
    const headers = value[2];
    if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return false;
  }
  return true;
}

/** A body that is sent as it is, without a renderer. */
export function isRawBody(body: unknown): boolean {
  return (
    body instanceof Uint8Array ||
    body instanceof ArrayBuffer ||
    body instanceof FileBody ||
    (typeof body === 'object' &&
      body !== null &&
      (Symbol.asyncIterator in body ||
        typeof (body as { getReader?: unknown }).getReader === 'function'))
  );
}

/** Adds tuple headers, which may be a plain object, a MultiValueHeaders or a WHATWG Headers. */
export function addTupleHeaders(target: MultiValueHeaders, headers: unknown): void {
  if (headers === undefined || headers === null) return;
  const source = headers as Parameters<MultiValueHeaders['set']>[1] & object;
  if (typeof (source as { forEach?: unknown }).forEach === 'function' && !Array.isArray(source)) {
    const seen = new Set<string>();
    const adopt = (value: string, name: string) => {
      const key = name.toLowerCase();
      if (!seen.has(key)) {
        seen.add(key);
        target.delete(name);
      }
      target.add(name, value);
    };
    const cookies = (source as { getSetCookie?: () => string[] }).getSetCookie?.();
    if (typeof (source as { getAll?: unknown }).getAll === 'function') {
      // A MultiValueHeaders: every value of every name.
      for (const [name, value] of source as Iterable<[string, string]>) adopt(value, name);
      return;
    }
    (source as { forEach(cb: (value: string, name: string) => void): void }).forEach(
      (value, name) => {
        if (cookies !== undefined && name.toLowerCase() === 'set-cookie') return;
        adopt(value, name);
      },
    );
    for (const cookie of cookies ?? []) target.add('Set-Cookie', cookie);
    return;
  }
  const record = headers as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    const value = record[name];
    if (value === undefined || value === null) continue;
    target.set(name, Array.isArray(value) ? value.map(String) : String(value));
  }
}

/** The body and status a handler's result stands for, before rendering. */
export interface Unpacked {
  body: unknown;
  status: number | undefined;
  headers: unknown;
}

export function unpack(result: unknown): Unpacked {
  if (isTuple(result)) return { body: result[0], status: result[1], headers: result[2] };
  return { body: result, status: undefined, headers: undefined };
}

/** Builds the response for a rendered or raw body. */
export function makeResponse(
  status: number,
  body: ResponseBody,
  contentType: string | undefined,
  headers: unknown,
): Response {
  const response = new Response(status, body);
  response.contentType = contentType;
  if (headers !== undefined) addTupleHeaders(response.headers, headers);
  return response;
}
