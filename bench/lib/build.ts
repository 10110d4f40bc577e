/**
 * Bundles benchmark scripts with esbuild so every contender runs on plain `node` (no loader
 * hooks, no TypeScript transform at run time), and `--cpu-prof` profiles read like the source.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { ROOT } from './machine.js';

/** Where bundles go (inside the git-ignored results folder). */
export const BUILD_DIR = join(ROOT, 'bench', 'results', '.build');

/**
 * Subjects still being written are imported through `bench-subject/<name>` (declared in
 * bench/subjects.d.ts), so the benchmark type-checks before they exist; the section checks the
 * file exists before bundling anything that imports it.
 */
export const SUBJECT_FILES: Readonly<Record<string, string>> = {
  aws: 'src/adapters/aws/index.ts',
  static: 'src/static/index.ts',
};

/** Undefined when every named subject exists, else the reason to skip. */
export function missingSubject(...names: string[]): string | undefined {
  for (const name of names) {
    const file = SUBJECT_FILES[name] ?? name;
    if (!existsSync(join(ROOT, file))) return `${file} does not exist yet`;
  }
  return undefined;
}

export const subjectsPlugin: Plugin = {
  name: 'bench-subjects',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^bench-subject\// }, (args) => {
      const file = SUBJECT_FILES[args.path.slice('bench-subject/'.length)];
      if (file === undefined) return { errors: [{ text: `Unknown subject ${args.path}` }] };
      return { path: join(ROOT, file) };
    });
  },
};

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
    plugins: [subjectsPlugin],
    logLevel: 'error',
  });
  return outfile;
}
