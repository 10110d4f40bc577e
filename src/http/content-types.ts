/**
 * The one curated extension → media type table, used by `Response.file` and the static router.
 * The first rows are the table docs/static-files.md lists; the rest are common web types.
 * `text/*` and JavaScript carry `charset=utf-8`. A Map rather than an object: an extension is
 * text from the request path, and a lookup on an object would find what Object.prototype holds
 * under names such as `constructor` or `__proto__` (docs/static-files.md: anything the table
 * does not know is application/octet-stream).
 */
export const CONTENT_TYPES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    // Seed table.
    html: 'text/html; charset=utf-8',
    css: 'text/css; charset=utf-8',
    js: 'application/javascript; charset=utf-8',
    json: 'application/json',
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    svg: 'image/svg+xml',
    pdf: 'application/pdf',
    txt: 'text/plain; charset=utf-8',
    // Documents and code.
    htm: 'text/html; charset=utf-8',
    mjs: 'application/javascript; charset=utf-8',
    cjs: 'application/javascript; charset=utf-8',
    map: 'application/json',
    xml: 'application/xml',
    csv: 'text/csv; charset=utf-8',
    md: 'text/markdown; charset=utf-8',
    yaml: 'application/yaml',
    yml: 'application/yaml',
    webmanifest: 'application/manifest+json',
    wasm: 'application/wasm',
    // Images.
    gif: 'image/gif',
    webp: 'image/webp',
    avif: 'image/avif',
    ico: 'image/x-icon',
    bmp: 'image/bmp',
    // Fonts.
    woff: 'font/woff',
    woff2: 'font/woff2',
    ttf: 'font/ttf',
    otf: 'font/otf',
    eot: 'application/vnd.ms-fontobject',
    // Audio and video.
    mp3: 'audio/mpeg',
    ogg: 'audio/ogg',
    wav: 'audio/wav',
    m4a: 'audio/mp4',
    mp4: 'video/mp4',
    webm: 'video/webm',
    ogv: 'video/ogg',
    // Archives.
    zip: 'application/zip',
    gz: 'application/gzip',
  }),
);

/** The default for anything the table does not know. */
export const OCTET_STREAM = 'application/octet-stream';

/** The media type for a file name or path, by its extension (case-insensitive). */
export function contentTypeFor(path: string): string {
  const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  const dot = path.lastIndexOf('.');
  if (dot <= slash + 1) return OCTET_STREAM;
  return CONTENT_TYPES.get(path.slice(dot + 1).toLowerCase()) ?? OCTET_STREAM;
}
