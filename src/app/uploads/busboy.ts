/**
 * `@fastify/busboy`, loaded at the first multipart body. It is CommonJS that `require()`s
 * `node:stream`, `node:util` and `node:events` when it loads. In dist/ those `require()`s are
 * answered by {@link requireNodeModule} (scripts/build.mjs), from the modules imported here just
 * before the parser: so no chunk the core can reach holds a static `node:` import. A static one
 * would be moved to the top of a user's bundle when a Worker bundler inlines our lazily loaded
 * chunks into one file, and load (or fail, without Node compatibility) at startup, while
 * docs/fetch.md promises that such a runtime fails only when it reads an upload or serves a file.
 * A dynamic `import()` of a Node module stays dynamic in a bundle.
 */
import type { BusboyConstructor } from '@fastify/busboy';

const nodeModules = new Map<string, unknown>();
let loading: Promise<BusboyConstructor> | undefined;

/** The parser, imported once, after the Node modules it requires. */
export function loadBusboy(): Promise<BusboyConstructor> {
  if (loading === undefined) {
    const started = Promise.all([import('node:stream'), import('node:util'), import('node:events')])
      .then(([stream, util, events]) => {
        // What `require()` returns is a Node module's `default` export.
        nodeModules.set('node:stream', stream.default);
        nodeModules.set('node:util', util.default);
        nodeModules.set('node:events', events.default);
        return import('@fastify/busboy');
      })
      // CommonJS: its `module.exports` is the default export, in dist/ as on Node.
      .then((module) => module.default.Busboy);
    // A failed load is tried again by the next upload rather than remembered forever.
    started.catch(() => {
      if (loading === started) loading = undefined;
    });
    loading = started;
  }
  return loading;
}

/**
 * A Node module the bundled parser `require()`s, as imported by {@link loadBusboy}. Where a
 * bundler evaluates every inlined module at startup (before any upload), the runtime's
 * `process.getBuiltinModule` answers instead when it has one (Node 20.16 and later, Workers with
 * Node compatibility).
 */
export function requireNodeModule(name: string): unknown {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (name: string) => unknown } })
    .process;
  const module = nodeModules.get(name) ?? runtime?.getBuiltinModule?.(name);
  if (module === undefined) {
    throw new Error(`${name} was required before it was imported (src/app/uploads/busboy.ts)`);
  }
  return module;
}
