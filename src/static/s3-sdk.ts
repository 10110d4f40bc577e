/**
 * `@aws-sdk/client-s3` is an optional peer dependency (docs/static-files.md): it is imported on
 * the first S3 request, never when the static router only serves a directory and never by the
 * core.
 *
 * Whether it is there is known only by importing it. A bundler may have put it inside the
 * bundle, where no lookup on disk finds it, and a CommonJS bundle has no `import.meta.url` to
 * look from; so a missing SDK is reported by the request that needed it, not at construction.
 */
import { StaticRouterError } from './errors.js';

/** The SDK's module, as far as the static router uses it. */
export type S3Sdk = typeof import('@aws-sdk/client-s3');

/** The package users install for S3 locations. */
export const S3_PACKAGE = '@aws-sdk/client-s3';

/** How the package is loaded; replaceable so tests can simulate its absence. */
export interface S3SdkLoader {
  load(): Promise<S3Sdk>;
}

/**
 * A specifier in a variable, which bundlers do not follow (webpack and Vite are told so, and stay
 * quiet): a program bundling the static router for local files needs no SDK installed, nor does it
 * carry it in its bundle. The SDK is then imported from where the program runs (a node_modules
 * beside it or above); a bundle that must carry it passes it as the `s3Sdk` option.
 */
const defaultLoader: S3SdkLoader = {
  load() {
    const specifier: string = S3_PACKAGE;
    return import(/* webpackIgnore: true */ /* @vite-ignore */ specifier) as Promise<S3Sdk>;
  },
};

let loader: S3SdkLoader = defaultLoader;
let loaded: Promise<S3Sdk> | undefined;

/** Replaces the loader (tests); `undefined` restores the default. Internal, not exported. */
export function setS3SdkLoader(replacement: S3SdkLoader | undefined): void {
  loader = replacement ?? defaultLoader;
  loaded = undefined;
}

/** Not found is told apart from found but broken (a bundle's shim, a bad install), which an install would not fix. */
function missing(cause: unknown): StaticRouterError {
  const code = (cause as { code?: unknown } | undefined)?.code;
  const message =
    code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND'
      ? `StaticRouter: an S3 location needs the package ${S3_PACKAGE}; install it with ` +
        `\`npm install ${S3_PACKAGE}\``
      : `StaticRouter: the package ${S3_PACKAGE} could not be loaded: ${(cause as Error)?.message ?? String(cause)}`;
  return new StaticRouterError('S3_CLIENT_MISSING', message, { cause });
}

/**
 * The SDK module, imported on first use; a failure is {@link StaticRouterError}
 * `S3_CLIENT_MISSING`, tried again by the next call.
 */
export function loadS3Sdk(): Promise<S3Sdk> {
  loaded ??= loader.load().catch((error: unknown) => {
    loaded = undefined;
    throw missing(error);
  });
  return loaded;
}
