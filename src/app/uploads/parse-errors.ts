/**
 * The errors the streaming side of uploads answers with: the 413 of a crossed limit, naming the
 * field and file, and the 400s of a body that is not well-formed multipart/form-data.
 */
import { HttpError } from '../../errors.js';
import { PART_HEADER_BYTES, PART_HEADER_LINES } from './limits.js';

/**
 * A limit of `MultipartLimits` that a body crossed, or `size` (the whole body's bound) or
 * `partHeaders` (one part's header block).
 */
export type CrossedLimit =
  | 'fileSize'
  | 'files'
  | 'fields'
  | 'parts'
  | 'fieldSize'
  | 'fieldsSize'
  | 'size'
  | 'partHeaders';

/** The 413 of a crossed limit, naming the field (and file) where it happened. */
export function limitCrossed(
  limit: CrossedLimit,
  value: number,
  field: string | undefined,
  filename?: string,
): HttpError {
  const where =
    field === undefined
      ? ''
      : filename === undefined
        ? ` at field ${JSON.stringify(field)}`
        : ` at file ${JSON.stringify(filename)} of field ${JSON.stringify(field)}`;
  const unit = /size$/i.test(limit) ? ' bytes' : '';
  const detail: { limit: CrossedLimit; field?: string; filename?: string } = { limit };
  if (field !== undefined) detail.field = field;
  if (filename !== undefined) detail.filename = filename;
  return new HttpError(413, `Upload over the ${limit} limit of ${value}${unit}${where}`, [detail]);
}

/** A part whose header block is over PART_HEADER_BYTES or PART_HEADER_LINES. */
export function partHeadersOver(): HttpError {
  return new HttpError(
    413,
    `Upload over the partHeaders limit of ${PART_HEADER_BYTES} bytes or ${PART_HEADER_LINES} lines in one part's headers`,
    [{ limit: 'partHeaders' }],
  );
}

/**
 * A delimiter line holds the boundary alone: the parser would read the rest, even the transport
 * padding RFC 2046 §5.1.1 allows, as a header line (header-blocks.ts).
 */
export function textAfterBoundary(): HttpError {
  return new HttpError(
    400,
    'Malformed multipart/form-data body: a delimiter line has text after the boundary (spaces and tabs included)',
  );
}

/** RFC 7578 §4.2: every part has `Content-Disposition: form-data` with the field's name. */
export function notFormData(): HttpError {
  return new HttpError(400, 'A multipart part has no form-data disposition or no field name');
}
