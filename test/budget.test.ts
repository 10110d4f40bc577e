/**
 * Deterministic budgets: the core's bundle stays small and free of Node built-ins and of the
 * other subpaths, so it bundles for Workers and keeps Lambda cold starts short.
 */
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';

/**
 * The core's minified size budget in bytes; raise it deliberately, with a reason. 96 KiB:
 * `accepts()` body parsers and declared charsets (about 4 KiB) and `sse()`, `signal` and
 * `requestTimeout` (about 3 KiB) took the core from 82 KiB to 90 KiB. Before that, 88 KiB: router
 * scope and hooks (scope, hooks, access log: about 7 KiB), the pino and Powertools logger
 * adapters, automatic ETags, and the messages for newcomer mistakes (registration sites, path
 * templates, unrepresentable results: about 5 KiB) took the core from 71 KiB to 82 KiB. Before
 * that, 72 KiB: the synchronous pipeline added about 3 KiB to the 63.5 KiB before it.
 */
const CORE_BUDGET = 96 * 1024;

describe('core bundle', () => {
  const result = buildSync({
    entryPoints: ['src/index.ts'],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    metafile: true,
    // The compression encoders are loaded by `import()` on the first compressed response (the
    // published build splits them into their own chunks): they are not part of the core's load.
    external: ['node:*', './node-encoders.js', './web-encoders.js'],
  });
  const code = result.outputFiles[0]?.text ?? '';

  it(`is under ${CORE_BUDGET / 1024} KiB minified`, () => {
    expect(code.length).toBeGreaterThan(1000);
    expect(code.length).toBeLessThan(CORE_BUDGET);
  });

  it('imports no node: module at load time (file bodies load node:fs lazily)', () => {
    expect(code).not.toMatch(/^import[^;]*from\s*"node:/m);
    expect(code).not.toMatch(/\bimport\s*"node:/);
  });

  it('loads the compression encoders only by dynamic import()', () => {
    expect(code).toMatch(/\bimport\("\.\/node-encoders\.js"\)/);
    expect(code).not.toMatch(/^import[^;]*from\s*"\.\/(node|web)-encoders\.js"/m);
  });

  it('contains nothing from the adapters, the static router, the configuration loader or the OpenAPI generator', () => {
    const inputs = Object.keys(result.metafile?.inputs ?? {});
    expect(inputs.length).toBeGreaterThan(10);
    for (const input of inputs) {
      expect(input).not.toMatch(/src\/(adapters|static|config|openapi)\//);
    }
  });
});
