/**
 * Bundles the Lambda section's contenders and events (TypeScript) into plain ES modules in
 * the directory given, for lambda-drive.mjs. Usage: node lambda-bundle.mjs <out dir>
 */
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../../', import.meta.url));
const [, , outdir] = process.argv;
const entries = ['restmachine', 'hono', 'floor'].map((name) => ({
  in: `${root}bench/lambda/contenders/${name}.ts`,
  out: name,
}));
entries.push({ in: `${root}bench/lambda/events.ts`, out: 'events' });
await build({
  entryPoints: entries,
  outdir,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outExtension: { '.js': '.mjs' },
  // Bundled CommonJS dependencies may still call require() for node built-ins.
  banner: {
    js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
