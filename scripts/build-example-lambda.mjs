// Builds the bookmarks example's Lambda function (examples/app/lambda.ts) into one folder that
// the Lambda Node.js runtime runs as it is: `node scripts/build-example-lambda.mjs <folder>`
// (`sam build` calls it through examples/app/Makefile). esbuild bundles the entry with
// restmachine, zod and pg into lambda.mjs; PGlite stays a package beside it, because it loads
// its WebAssembly and data files from its own folder at run time.
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const out = process.argv[2];
if (out === undefined) {
  console.error('usage: node scripts/build-example-lambda.mjs <output folder>');
  process.exit(2);
}
const folder = resolve(out);
mkdirSync(folder, { recursive: true });

await build({
  entryPoints: ['examples/app/lambda.ts'],
  outfile: join(folder, 'lambda.mjs'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  // pg-native is pg's optional native binding, never used here.
  external: ['@electric-sql/pglite', 'pg-native'],
  // pg is CommonJS and requires Node's modules; an ES module bundle needs a `require` for it.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
cpSync('node_modules/@electric-sql/pglite', join(folder, 'node_modules/@electric-sql/pglite'), {
  recursive: true,
});
writeFileSync(join(folder, 'package.json'), `${JSON.stringify({ type: 'module' }, null, 2)}\n`);
console.log(`Built ${join(folder, 'lambda.mjs')} (handler: lambda.handler)`);
