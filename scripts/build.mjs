// Builds dist/: one ESM bundle per public entry point, with the code they share split into
// chunks (so every subpath uses the same classes and the core loads nothing of the others),
// and the type declarations from tsc. Bundling matters for Lambda cold starts: Node resolves and
// compiles a handful of files instead of dozens.
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';

const entryPoints = [
  'src/index.ts',
  'src/adapters/node/index.ts',
  'src/adapters/fetch/index.ts',
  'src/adapters/aws/index.ts',
  'src/static/index.ts',
  'src/config/index.ts',
  'src/openapi/index.ts',
  'src/client/index.ts',
  'src/config/cli.ts',
];

/**
 * Packages bundled into dist/ rather than imported from it. Dependencies stay imports: users
 * install them once and get their fixes from npm. These are here because a user's bundler
 * cannot bundle them as they are published: @fastify/busboy is CommonJS that `require()`s
 * `node:stream`, which an ESM bundle (esbuild's `--format=esm`, as for Lambda) turns into a shim
 * that throws "Dynamic require of "node:stream" is not supported" on the first upload; yaml's
 * Node build is CommonJS that `require()`s `process` and `buffer`, which fails the same way as
 * soon as `restmachine/config` is imported. jsonc-parser's main entry is UMD, whose `require()`s esbuild cannot follow (the bundle throws
 * "Cannot find module './impl/format'"); it is taken from its ESM entry (`mainFields`). Ajv's
 * draft-06 meta-schema is JSON: bundled, it needs no import attributes (Node 20.10 and later).
 */
const BUNDLED = new Set([
  '@fastify/busboy',
  'yaml',
  'jsonc-parser',
  'ajv/dist/refs/json-schema-draft-06.json',
]);

/** `@scope/name` or `name` of a bare import specifier. */
function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Answers the parser's `require()` of a Node module (src/app/uploads/busboy.ts). */
const requireNodeModule = join(import.meta.dirname, '../src/app/uploads/busboy.ts');

/**
 * Every package is external but the BUNDLED ones, and no `require` of a Node module is left in
 * dist for a user's ESM bundle to break. @fastify/busboy's `require()`s are answered by
 * `requireNodeModule`, from the modules its loader imported dynamically just before it: a static
 * `node:` import in a chunk the core loads lazily would be moved to the top of a Worker by a
 * bundler inlining our chunks into one file, and load at startup. Another bundled package's
 * `require()` (the configuration loader's, which is for Node) becomes an ESM import of the
 * module, through a small module that re-exports it.
 */
const dependencies = {
  name: 'dependencies',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) => {
      if (isBuiltin(args.path)) {
        if (args.kind !== 'require-call') return { path: args.path, external: true };
        const parser = args.importer.includes('/node_modules/@fastify/busboy/');
        return { path: args.path, namespace: parser ? 'parser-node-module' : 'node-module' };
      }
      const bundled = BUNDLED.has(args.path) || BUNDLED.has(packageName(args.path));
      return bundled ? undefined : { path: args.path, external: true };
    });
    builder.onLoad({ filter: /.*/, namespace: 'node-module' }, (args) => ({
      contents: `export * from '${args.path}';\nexport { default } from '${args.path}';\n`,
      loader: 'js',
    }));
    builder.onLoad({ filter: /.*/, namespace: 'parser-node-module' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(requireNodeModule)}).requireNodeModule(${JSON.stringify(args.path)});\n`,
      loader: 'js',
      resolveDir: import.meta.dirname,
    }));
  },
};

rmSync('dist', { recursive: true, force: true });
const { metafile } = await build({
  entryPoints,
  outdir: 'dist',
  outbase: 'src',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  plugins: [dependencies],
  mainFields: ['module', 'main'],
  sourcemap: true,
  metafile: true,
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});
writeNotices(metafile);
const tsc = spawnSync(
  'npx',
  ['tsc', '-p', 'tsconfig.build.json', '--emitDeclarationOnly', '--sourceMap', 'false'],
  { stdio: 'inherit' },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
chmodSync('dist/config/cli.js', 0o755);

/** The licences of the BUNDLED packages, which travel with their code (the MIT licence asks it). */
function writeNotices(metafile) {
  const bundled = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(input);
    if (match) bundled.set(match[1], [...(bundled.get(match[1]) ?? []), match[2]]);
  }
  const notices = [...bundled].sort().map(([directory, files]) => {
    const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8'));
    const file = readdirSync(directory).find((name) => /^licen[cs]e(\.|$)/i.test(name));
    if (file === undefined) throw new Error(`${directory}: no licence file to ship with its code`);
    const licence = readFileSync(join(directory, file), 'utf8').trim();
    const heading = `${manifest.name} ${manifest.version} (${manifest.license}), bundled into dist/`;
    return `${heading}: ${files.sort().join(', ')}\n\n${licence}\n`;
  });
  writeFileSync('dist/THIRD-PARTY-NOTICES.txt', notices.join('\n---\n\n'));
}
