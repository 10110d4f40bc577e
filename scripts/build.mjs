// Builds dist/: one ESM bundle per public entry point, with the code they share split into
// chunks (so every subpath uses the same classes and the core loads nothing of the others),
// and the type declarations from tsc. Bundling matters for Lambda cold starts: Node resolves and
// compiles a handful of files instead of dozens.
import { spawnSync } from 'node:child_process';
import { chmodSync, rmSync } from 'node:fs';
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

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints,
  outdir: 'dist',
  outbase: 'src',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Dependencies (ajv, yaml, the optional S3 SDK) stay imports: users install them once.
  packages: 'external',
  sourcemap: true,
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
});
const tsc = spawnSync(
  'npx',
  ['tsc', '-p', 'tsconfig.build.json', '--emitDeclarationOnly', '--sourceMap', 'false'],
  { stdio: 'inherit' },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
chmodSync('dist/config/cli.js', 0o755);
