/**
 * The public shapes of uploads (docs/uploads.md): the files of `files` and the parts of `parts`.
 * Types only, so the core carries none of the code behind them.
 */

/**
 * One uploaded file of `files`, received whole before the handler runs: in memory, or in a
 * temporary file above the spill threshold. It is removed when the response is finished; a
 * `stream()` opened before then keeps the file until it is read or cancelled.
 *
 * @example
 * app.post('/avatars', async ({ files }) => {
 *   const [avatar] = files;
 *   if (avatar === undefined) throw new HttpError(400, 'No avatar');
 *   return { name: avatar.filename, size: avatar.size, type: avatar.contentType };
 * });
 */
export interface UploadedFile {
  /** The form field the file came in (`name` of its Content-Disposition). */
  readonly field: string;
  /** The file's name as the client gave it, without any directory part (`''` when none). */
  readonly filename: string;
  /** The part's Content-Type (`text/plain` when the client gave none, RFC 7578 §4.4). */
  readonly contentType: string;
  /** Its length in bytes. */
  readonly size: number;
  /** The whole content. */
  bytes(): Promise<Uint8Array>;
  /** The content decoded as UTF-8 (malformed bytes become U+FFFD, as `Blob.text()` does). */
  text(): Promise<string>;
  /** The content as a stream, from the start, as often as asked. */
  stream(): ReadableStream<Uint8Array>;
}

/**
 * One part of `parts`, as it arrives: its content is read once, while the iteration is on it
 * (moving to the next part skips what was not read). The limits apply while it is read.
 *
 * @example
 * app.post('/archive', async ({ parts }) => {
 *   for await (const part of parts) {
 *     if (part.filename !== undefined) await store.put(part.filename, part.stream());
 *   }
 *   return null;
 * });
 */
export interface MultipartPart extends AsyncIterable<Uint8Array> {
  readonly field: string;
  /** The file's name for a file part (`''` when it has none); `undefined` for a text field. */
  readonly filename: string | undefined;
  readonly contentType: string;
  /** The rest of the content, whole. */
  bytes(): Promise<Uint8Array>;
  /** The rest of the content as UTF-8 text (a text field's value). */
  text(): Promise<string>;
  /** The rest of the content as a stream. */
  stream(): ReadableStream<Uint8Array>;
}
