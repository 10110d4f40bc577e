/**
 * `@aws-sdk/client-s3` is an optional peer dependency (docs/static-files.md): it is looked for
 * when an S3 location is configured and loaded on the first S3 request, never when the static
 * router only serves a directory and never by the core.
 *
 * Construction is synchronous, so it only checks that the package can be found (a resolution,
 * which reads no module); the module itself is imported lazily, once.
 */
import { createRequire } from 'node:module';
import { StaticRouterError } from './errors.js';

/** The SDK's module, as far as the static router uses it. */
export type S3Sdk = typeof import('@aws-sdk/client-s3');

/** The package users install for S3 locations. */
export const S3_PACKAGE = '@aws-sdk/client-s3';

/** How the package is found and loaded; replaceable so tests can simulate its absence. */
export interface S3SdkLoader {
  /** Throws when the package cannot be found. */
  resolve(): void;
  load(): Promise<S3Sdk>;
}

const defaultLoader: S3SdkLoader = {
  resolve() {
    createRequire(import.meta.url).resolve(S3_PACKAGE);
  },
  load() {
    return import('@aws-sdk/client-s3');
  },
};

let loader: S3SdkLoader = defaultLoader;
let loaded: Promise<S3Sdk> | undefined;

/** Replaces the loader (tests); `undefined` restores the default. Internal, not exported. */
export function setS3SdkLoader(replacement: S3SdkLoader | undefined): void {
  loader = replacement ?? defaultLoader;
  loaded = undefined;
}

function missing(cause: unknown): StaticRouterError {
  return new StaticRouterError(
    'S3_CLIENT_MISSING',
    `StaticRouter: an S3 location needs the package ${S3_PACKAGE}; install it with ` +
      `\`npm install ${S3_PACKAGE}\``,
    { cause },
  );
}

/** Throws {@link StaticRouterError} `S3_CLIENT_MISSING` when the package is not installed. */
export function requireS3Sdk(): void {
  try {
    loader.resolve();
  } catch (error) {
    throw missing(error);
  }
}

/** The SDK module, imported on first use. */
export function loadS3Sdk(): Promise<S3Sdk> {
  loaded ??= loader.load().catch((error: unknown) => {
    loaded = undefined;
    throw missing(error);
  });
  return loaded;
}
