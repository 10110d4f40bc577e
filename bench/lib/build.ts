/**
 * Bundles benchmark scripts with esbuild so every contender runs on plain `node` (no loader
 * hooks, no TypeScript transform at run time), and `--cpu-prof` profiles read like the source.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT } from './machine.js';

/** Where bundles go (inside the git-ignored results folder). */
export const BUILD_DIR = join(ROOT, 'bench', 'results', '.build');

/** The subjects each section measures, checked before anything that imports them is bundled. */
export const SUBJECT_FILES: Readonly<Record<string, string>> = {
  node: 'src/adapters/node/index.ts',
  aws: 'src/adapters/aws/index.ts',
  static: 'src/static/index.ts',
  config: 'src/config/index.ts',
};

/** Undefined when every named subject (or file) exists, else the reason to skip. */
export function missingSubject(...names: string[]): string | undefined {
  for (const name of names) {
    const file = SUBJECT_FILES[name] ?? name;
    if (!existsSync(join(ROOT, file))) return `${file} does not exist`;
  }
  return undefined;
}

// Bundled CommonJS code may call require() for Node built-ins; ESM output needs a real one.
const REQUIRE_BANNER =
  "import { createRequire as __benchCreateRequire } from 'node:module';\n" +
  'const require = __benchCreateRequire(import.meta.url);';

export interface BundleOptions {
  /** Output name, without extension. */
  readonly name: string;
  /** Bundle node_modules too (cold starts, sizes) instead of loading them at run time. */
  readonly includePackages?: boolean;
  readonly minify?: boolean;
}

/** Bundles `entry` (relative to the repository root) and returns the output file. */
export async function bundle(entry: string, options: BundleOptions): Promise<string> {
  mkdirSync(BUILD_DIR, { recursive: true });
  const outfile = join(BUILD_DIR, `${options.name}.mjs`);
  await build({
    entryPoints: [join(ROOT, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: options.includePackages ? undefined : 'external',
    minify: options.minify ?? false,
    banner: options.includePackages ? { js: REQUIRE_BANNER } : undefined,
    logLevel: 'error',
  });
  return outfile;
}
