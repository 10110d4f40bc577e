/**
 * Where the API reference page's scripts and styles come from: the `swagger-ui-dist` package,
 * an optional peer dependency that runs on Node 20, served by the application itself (no CDN).
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { SetupError } from '../errors.js';

export const SWAGGER_UI_PACKAGE = 'swagger-ui-dist';

/** The files of the package the page loads. */
export const SWAGGER_UI_FILES = {
  style: 'swagger-ui.css',
  script: 'swagger-ui-bundle.js',
} as const;

/** Resolves module names as Node would from a place; `createRequire(...)`'s `resolve`. */
export interface ModuleResolver {
  resolve(name: string): string;
}

/**
 * The directory of the installed `swagger-ui-dist`, or a SetupError naming the package and how
 * to install it. `resolver` is where to look from (this module by default).
 */
export function locateSwaggerUi(resolver: ModuleResolver = createRequire(import.meta.url)): string {
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
