/**
 * Renderers: the built-in JSON, HTML and text representations, and the compiled form every
 * renderer takes (docs/application.md, "Content negotiation").
 */
import { type MediaType, parseMediaType } from '../../http/media-type.js';
import type { Getter } from '../inject/getters.js';

/**
 * A renderer as the pipeline uses it: its media type and how to call it. With neither `builtin`
 * nor `fn`, the handler answers with this type itself (`provides(type)` without a renderer).
 */
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

/** The built-in renderers, in the server's default order: JSON first, then HTML and text. */
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
  // It is sent as Content-Type, which names one type, never a range (RFC 9110 §8.3).
  if (parsed.type === '*' || parsed.subtype === '*') {
    throw new TypeError(
      `${JSON.stringify(mediaType)} is a media range: a renderer provides one type, such as text/csv`,
    );
  }
  return parsed;
}
