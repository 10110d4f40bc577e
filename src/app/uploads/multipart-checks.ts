/**
 * What a multipart body's client chose and the parser cannot be trusted to read one way only:
 * the Content-Type's boundary (a part's name and filename are read in ./disposition.ts).
 */

import { HttpError } from '../../errors.js';
import { parseMediaType } from '../../http/media-type.js';

// RFC 2046 §5.1.1: 1 to 70 of these characters, the last not a space.
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/** RFC 7578 §5.1: a field name or filename that is not ASCII is sent in UTF-8. */
export function nameNotUtf8(): HttpError {
  return new HttpError(
    400,
    'A multipart part has a field name or filename that is not valid UTF-8',
  );
}

/** A body the parser could not read, or a Content-Type it could not frame one with. */
export function malformed(error: unknown): HttpError {
  return new HttpError(400, `Malformed multipart/form-data body: ${(error as Error).message}`);
}

/**
 * Whether a Content-Type parameter (the text between two `;`) is a `boundary`, however it is
 * spelt: any case, whitespace anywhere in the name (a parser may skip it), and `boundary*` or
 * `boundary*0` (RFC 2231 extended and continued values).
 */
function namesBoundary(parameter: string): boolean {
  const equals = parameter.indexOf('=');
  const name = (equals === -1 ? parameter : parameter.slice(0, equals)).replace(/\s/g, '');
  return name.toLowerCase().replace(/\*.*$/, '') === 'boundary';
}

/**
 * The boundary of a multipart Content-Type, checked. It must be named once: RFC 6838 §4.3 makes
 * a parameter given twice an error, and readers disagree on which one counts (the first, the
 * last, the `boundary*` spelling), so the part-header watch (header-blocks.ts) and the parser
 * could frame the body differently. The parser is then given only this boundary (see the
 * constructor). The parameters are counted split at every `;`, quoted values or not, so a
 * `; boundary=` inside another parameter's quoted value counts too: refused, never read two ways.
 */
export function checkedBoundary(contentType: string): string {
  const named = contentType.split(';').slice(1).filter(namesBoundary).length;
  if (named > 1) {
    throw new HttpError(
      400,
      'The multipart/form-data Content-Type names its boundary parameter more than once',
    );
  }
  const boundary = parseMediaType(contentType)?.params.boundary ?? '';
  if (!BOUNDARY.test(boundary)) {
    throw malformed(
      new Error(`the boundary ${JSON.stringify(boundary)} is not one RFC 2046 allows`),
    );
  }
  return boundary;
}
