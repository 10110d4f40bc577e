/**
 * restmachine/static: `StaticRouter`, serving files from a local directory or an S3 bucket.
 * `@aws-sdk/client-s3` is an optional peer dependency, loaded only for S3 locations.
 */
export { StaticRouterError, type StaticRouterErrorCode, StaticServeError } from './errors.js';
export type {
  DotfilesPolicy,
  S3ClientConfigLike,
  S3ClientLike,
  S3SdkLike,
  StaticCacheOptions,
  StaticRouterOptions,
} from './options.js';
export { StaticRouter } from './router.js';
