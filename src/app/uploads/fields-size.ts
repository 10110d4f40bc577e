/**
 * `fieldsSize` (docs/uploads.md): the bytes of one request's text fields together. `fieldSize`
 * bounds one field and `fields` their number, but the two multiplied (100 MiB by default) is
 * far more than a form needs and than a server can hold for every client at once: `formBody`
 * keeps every field in memory until the handler is done. The bytes are counted as each field's
 * content flows, read or skipped, so the limit is the same whether the fields are kept
 * (`formBody`) or streamed (`parts`), and the whole body's bound (`multipartTotal`) can rely on it.
 */
import type { RawPart } from './raw-part.js';

export class FieldsSizeCount {
  readonly limit: number;
  #bytes = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Counts `bytes` more of `part` (files do not count); whether the fields are still within. */
  within(part: Pick<RawPart, 'filename'>, bytes: number): boolean {
    if (part.filename !== undefined) return true;
    this.#bytes += bytes;
    return this.#bytes <= this.limit;
  }
}
