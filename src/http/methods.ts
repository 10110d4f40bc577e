/**
 * The HTTP methods restmachine routes. Usable as values (`HTTPMethod.PATCH`) and as a type.
 *
 * @example
 * app.route(HTTPMethod.PATCH, '/items/{id}', ({ id }) => ({ id }));
 */
export const HTTPMethod = {
  GET: 'GET',
  POST: 'POST',
  PUT: 'PUT',
  DELETE: 'DELETE',
  PATCH: 'PATCH',
  HEAD: 'HEAD',
  OPTIONS: 'OPTIONS',
} as const;

export type HTTPMethod = (typeof HTTPMethod)[keyof typeof HTTPMethod];

/** A method in any letter case, as registration calls accept it. */
export type MethodInput = HTTPMethod | Lowercase<HTTPMethod> | (string & {});

/** The order methods are listed in an `Allow` header (RFC 9110 §10.2.1 leaves it to us). */
export const ALLOW_ORDER: readonly HTTPMethod[] = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
];

/** The method when `value` is one exactly as written (upper case), else `undefined`. */
function exactMethod(value: string): HTTPMethod | undefined {
  // A switch on string constants: methods from a parser's table compare by identity.
  switch (value) {
    case 'GET':
      return 'GET';
    case 'POST':
      return 'POST';
    case 'PUT':
      return 'PUT';
    case 'DELETE':
      return 'DELETE';
    case 'PATCH':
      return 'PATCH';
    case 'HEAD':
      return 'HEAD';
    case 'OPTIONS':
      return 'OPTIONS';
    default:
      return undefined;
  }
}

/**
 * Returns the canonical method for `value` in any ASCII case, or `undefined` when it is not one.
 * Only ASCII letters are upper-cased (a method is a token, RFC 9110 §9.1): in Unicode `'poſt'`
 * (long s) upper-cases to POST and `'optıons'` (dotless i) to OPTIONS.
 */
export function parseMethod(value: string): HTTPMethod | undefined {
  return (
    exactMethod(value) ?? (/^[a-z]+$/i.test(value) ? exactMethod(value.toUpperCase()) : undefined)
  );
}

/** Like {@link parseMethod} but throws a registration error naming the allowed methods. */
export function normalizeMethod(value: string): HTTPMethod {
  const method = typeof value === 'string' ? parseMethod(value) : undefined;
  if (method === undefined) {
    throw new TypeError(
      `Unknown HTTP method ${JSON.stringify(value)}: expected one of ${ALLOW_ORDER.join(', ')}`,
    );
  }
  return method;
}

/** Formats a set of methods as an `Allow` header value in the canonical order. */
export function formatAllow(methods: ReadonlySet<string>): string {
  return ALLOW_ORDER.filter((method) => methods.has(method)).join(', ');
}

/**
 * The `Allow` of a path whose routes answer `methods`: HEAD wherever GET is, and OPTIONS always
 * (RFC 9110 §9.3.2, §9.3.7).
 */
export function allowForPath(methods: Iterable<string>): string {
  const allowed = new Set(methods);
  if (allowed.has(HTTPMethod.GET)) allowed.add(HTTPMethod.HEAD);
  allowed.add(HTTPMethod.OPTIONS);
  return formatAllow(allowed);
}
