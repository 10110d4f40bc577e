/**
 * The precondition headers a route with ETag or Last-Modified providers understands, documented
 * as optional header parameters (RFC 9110 §13.1): the 304 and 412 answers they lead to are
 * documented beside them (operation.ts).
 */
import type { OpenApiParameter } from './types.js';

const HTTP_DATE = 'An HTTP date (RFC 9110 §5.6.7)';

function header(name: string, description: string): OpenApiParameter {
  return { name, in: 'header', required: false, description, schema: { type: 'string' } };
}

/**
 * The conditional request headers of a route: `If-Match` and `If-None-Match` with an ETag
 * provider, `If-Unmodified-Since` (and for GET/HEAD `If-Modified-Since`) with a Last-Modified one.
 * RFC 9110 §13.1.3 and §13.1.4: the date conditions apply only without the entity-tag ones.
 */
export function conditionalParameters(
  method: string,
  etag: boolean,
  lastModified: boolean,
): OpenApiParameter[] {
  const parameters: OpenApiParameter[] = [];
  const read = method === 'GET' || method === 'HEAD';
  if (etag) {
    parameters.push(
      header('If-Match', 'Entity tags, or `*`: the request runs only if one matches, else 412'),
      header(
        'If-None-Match',
        read
          ? 'Entity tags, or `*`: a match answers 304 Not Modified'
          : 'Entity tags, or `*`: a match answers 412 Precondition Failed',
      ),
    );
  }
  if (lastModified) {
    parameters.push(header('If-Unmodified-Since', `${HTTP_DATE}: a later change answers 412`));
    if (read) {
      parameters.push(header('If-Modified-Since', `${HTTP_DATE}: no change since answers 304`));
    }
  }
  return parameters;
}
