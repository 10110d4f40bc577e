/**
 * The `serve` argument: a local directory, or an S3 location `s3://bucket/prefix/`
 * (`objstore://bucket/prefix/` is accepted as the same thing).
 */
import { StaticRouterError } from './errors.js';

/** Where files come from. */
export type Location =
  | { kind: 'local'; path: string }
  | {
      kind: 's3';
      bucket: string;
      /** The key prefix, with its trailing slash (`'assets/'`), `''` at the bucket root. */
      prefix: string;
    };

const SCHEME = /^(s3|objstore):\/\//i;
// S3's own rules are stricter (lower case, 3 to 63 characters); S3-compatible stores differ, so
// only what could never be a bucket is refused here.
const BUCKET = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Reads `serve`.
 *
 * @example
 * parseLocation('s3://site/assets'); // { kind: 's3', bucket: 'site', prefix: 'assets/' }
 */
export function parseLocation(serve: string): Location {
  if (typeof serve !== 'string' || serve === '') {
    throw new StaticRouterError(
      'INVALID_OPTION',
      'StaticRouter: serve must be a directory or an s3://bucket/prefix/ location',
    );
  }
  const scheme = SCHEME.exec(serve);
  if (scheme === null) return { kind: 'local', path: serve };
  const rest = serve.slice(scheme[0].length);
  const slash = rest.indexOf('/');
  const bucket = slash === -1 ? rest : rest.slice(0, slash);
  if (!BUCKET.test(bucket)) {
    throw new StaticRouterError(
      'INVALID_OPTION',
      `StaticRouter: no valid bucket name in ${JSON.stringify(serve)}`,
    );
  }
  let prefix = slash === -1 ? '' : rest.slice(slash + 1);
  if (prefix !== '' && !prefix.endsWith('/')) prefix += '/';
  return { kind: 's3', bucket, prefix };
}
