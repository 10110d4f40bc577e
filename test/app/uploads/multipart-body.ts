/**
 * Builds `multipart/form-data` bodies (RFC 7578) for the upload tests, byte for byte, so a test
 * can choose the boundary, split the body anywhere and break it on purpose.
 */

export interface FormPart {
  name: string;
  value: string | Uint8Array;
  /** Present for a file part. */
  filename?: string;
  contentType?: string;
}

const encoder = new TextEncoder();

/** A quoted value as the HTML standard's form encoder writes it (docs/uploads.md). */
function quoted(value: string): string {
  return `"${value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;
}

/** The body and its Content-Type for `parts`, delimited by `boundary`. */
export function multipartBody(
  parts: readonly FormPart[],
  boundary = 'restmachine-test-boundary',
): { body: Uint8Array; contentType: string } {
  const chunks: Uint8Array[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name=${quoted(part.name)}`;
    if (part.filename !== undefined) head += `; filename=${quoted(part.filename)}`;
    head += '\r\n';
    if (part.contentType !== undefined) head += `Content-Type: ${part.contentType}\r\n`;
    chunks.push(encoder.encode(`${head}\r\n`));
    chunks.push(typeof part.value === 'string' ? encoder.encode(part.value) : part.value);
    chunks.push(encoder.encode('\r\n'));
  }
  chunks.push(encoder.encode(`--${boundary}--\r\n`));
  const body = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  const needsQuotes = /[^A-Za-z0-9'()+_,\-./:=?]/.test(boundary);
  return {
    body,
    contentType: `multipart/form-data; boundary=${needsQuotes ? quoted(boundary) : boundary}`,
  };
}

/** `body` as an async stream of the pieces between `rawCuts` (any numbers, taken modulo its length + 1). */
export async function* splitAt(
  body: Uint8Array,
  rawCuts: readonly number[],
): AsyncGenerator<Uint8Array> {
  // Any numbers a property test draws, as positions in the body, each once and in order.
  const cuts = [...new Set(rawCuts.map((cut) => cut % (body.length + 1)))].sort((a, b) => a - b);
  let start = 0;
  for (const cut of [...cuts, body.length]) {
    if (cut > start) yield body.slice(start, cut);
    start = Math.max(start, cut);
  }
}
