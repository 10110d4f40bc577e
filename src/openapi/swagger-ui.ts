/**
 * Where the API reference page's scripts and styles come from: the `swagger-ui-dist` package,
 * an optional peer dependency that runs on Node 20, served by the application itself (no CDN).
 */
import type * as NodeModule from 'node:module';
import type * as Path from 'node:path';
import { SetupError } from '../errors.js';
import { noBuiltinReason, nodeBuiltin } from '../node-builtin.js';

export const SWAGGER_UI_PACKAGE = 'swagger-ui-dist';

/** The files of the package the page loads. */
export const SWAGGER_UI_FILES = {
  style: 'swagger-ui.css',
  script: 'swagger-ui-bundle.js',
  icon: 'favicon-32x32.png',
} as const;

/** Resolves module names as Node would from a place; `createRequire(...)`'s `resolve`. */
export interface ModuleResolver {
  resolve(name: string): string;
}

/**
 * Resolves from this module's file. Where a bundler made CommonJS of it (esbuild's default for
 * `--platform=node`), `import.meta` is empty and the file is the bundle's own `__filename`. The
 * package's files are read from disk either way: a bundle finds them in a node_modules beside or
 * above it.
 */
function resolverHere(): ModuleResolver {
  const { createRequire } = nodeModule<typeof NodeModule>('node:module');
  const { join } = nodeModule<typeof Path>('node:path');
  const url: string | undefined = import.meta.url;
  if (url !== undefined) return createRequire(url);
  return createRequire(
    typeof __filename === 'string' ? __filename : join(process.cwd(), 'index.js'),
  );
}

/**
 * The directory of the installed `swagger-ui-dist`, or a SetupError naming the package and how
 * to install it. `resolver` is where to look from (this module by default).
 */
export function locateSwaggerUi(resolver: ModuleResolver = resolverHere()): string {
  const { dirname } = nodeModule<typeof Path>('node:path');
  try {
    return dirname(resolver.resolve(`${SWAGGER_UI_PACKAGE}/package.json`));
  } catch (cause) {
    throw new SetupError(
      'INVALID_OPTION',
      `openapiRouter(): the API reference page needs the package "${SWAGGER_UI_PACKAGE}", which is not installed. ` +
        `Install it with \`npm install ${SWAGGER_UI_PACKAGE}\`, or pass { docs: false } to serve the document only`,
      { cause },
    );
  }
}

/**
 * A Node module the page's files are found with, taken when the page is asked for rather than
 * imported with the module, so `restmachine/openapi` loads (and serves its document) on a runtime
 * without them; there, asking for the page is a SetupError that says so.
 */
function nodeModule<Module>(name: string): Module {
  const module = nodeBuiltin<Module>(name);
  if (module === undefined) {
    throw new SetupError(
      'INVALID_OPTION',
      `openapiRouter(): the API reference page is served from the installed "${SWAGGER_UI_PACKAGE}", found with ${name}, and ${noBuiltinReason(name)}. Pass { docs: false } to serve the document only`,
    );
  }
  return module;
}
