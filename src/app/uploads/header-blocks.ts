/**
 * A watch on a raw multipart body for part header blocks over a bound. The parser keeps the
 * first `headerSize` bytes of a longer block and parses them as if they were whole, and drops
 * header lines past `headerPairs`, so a field sent as `role_requested_by_user` could reach the
 * handler as `role`: a different reading of the same body than any other reader's. Here such a
 * block is refused before the parser sees it, and the parser's own bounds are set above these.
 *
 * The body is the delimiter grammar of RFC 2046 §5.1.1: each delimiter is CRLF `--` boundary,
 * the rest of its line ends with CRLF, header lines follow until a blank line, and `--` right
 * after the boundary closes the body. Anything after the boundary on its line is refused: the
 * parser reads it as the part's first header line, where this watch would not count it, and the
 * two would see different header blocks. That includes the transport padding (spaces and tabs)
 * RFC 2046 allows there, which the parser reads the same way and no browser sends.
 */

const CRLF = Buffer.from('\r\n');
const HYPHEN = 0x2d;
const CR = 0x0d;

/** What the watch refuses in a body. */
export type BodyFault = 'header block over the bound' | 'text after the boundary';

/**
 * Whether `data[from, to)`, the rest of a delimiter line, is empty. A CR at the very end of the
 * data may start the line's CRLF, so it waits for the next chunk.
 */
function endsAtBoundary(data: Buffer, from: number, to: number, lineEnded: boolean): boolean {
  const last = !lineEnded && data[to - 1] === CR ? to - 1 : to;
  return last <= from;
}

/** Where the watch is in the body. */
type Place = 'content' | 'delimiter line' | 'headers' | 'epilogue';

export class PartHeaderWatch {
  readonly #delimiter: Buffer;
  readonly #maxBytes: number;
  readonly #maxLines: number;
  #place: Place = 'content';
  // Bytes carried over from the last chunk (a delimiter or a line end may straddle two), and
  // where they start in the body. The body opens with a delimiter that has no CRLF before it:
  // one is put in front.
  #carried: Buffer = CRLF;
  #carriedAt = -CRLF.length;
  // Where the current part's header block started in the body, and its lines so far.
  #blockStart = 0;
  #lines = 0;

  constructor(boundary: string, maxBytes: number, maxLines: number) {
    this.#delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
    this.#maxBytes = maxBytes;
    this.#maxLines = maxLines;
  }

  /** Reads the next `chunk` of the body; the fault once one is found, else `undefined`. */
  read(chunk: Buffer): BodyFault | undefined {
    const data = this.#carried.length === 0 ? chunk : Buffer.concat([this.#carried, chunk]);
    const start = this.#carriedAt;
    let position = 0;
    let keepFrom: number | undefined;
    while (keepFrom === undefined && this.#place !== 'epilogue') {
      // The blank line that ends a block counts toward it.
      const inBlock = this.#place === 'delimiter line' || this.#place === 'headers';
      if (this.#place === 'content') {
        const found = data.indexOf(this.#delimiter, position);
        if (found === -1) {
          keepFrom = Math.max(position, data.length - (this.#delimiter.length - 1));
        } else {
          position = found + this.#delimiter.length;
          this.#place = 'delimiter line';
          this.#blockStart = start + position;
          this.#lines = 0;
        }
      } else if (this.#place === 'delimiter line' && data.length - position < 2) {
        keepFrom = position;
      } else if (
        this.#place === 'delimiter line' &&
        data[position] === HYPHEN &&
        data[position + 1] === HYPHEN
      ) {
        this.#place = 'epilogue';
      } else {
        const end = data.indexOf(CRLF, position);
        if (
          this.#place === 'delimiter line' &&
          !endsAtBoundary(data, position, end === -1 ? data.length : end, end !== -1)
        ) {
          return 'text after the boundary';
        }
        if (end === -1) {
          keepFrom = position;
        } else {
          if (this.#place === 'delimiter line') this.#place = 'headers';
          else if (end === position) this.#place = 'content';
          else if (++this.#lines > this.#maxLines) return 'header block over the bound';
          position = end + CRLF.length;
        }
      }
      if (inBlock) {
        const reached = keepFrom === undefined ? position : data.length;
        if (start + reached - this.#blockStart > this.#maxBytes) {
          return 'header block over the bound';
        }
      }
    }
    this.#carried = keepFrom === undefined ? Buffer.alloc(0) : data.subarray(keepFrom);
    this.#carriedAt = start + (keepFrom ?? data.length);
    return undefined;
  }
}
