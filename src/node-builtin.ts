/**
 * A Node built-in module, loaded synchronously where the runtime has it
 * (`process.getBuiltinModule`: Node 20.16 and later, Bun, Deno, Workers with Node
 * compatibility); `undefined` elsewhere. For code that must answer at once (a constructor that
 * checks a directory) where a static `import` of the module would stop the whole bundle from
 * loading on a runtime without it (a Worker), and a dynamic `import()` would answer too late.
 */
export function nodeBuiltin<Module>(name: string): Module | undefined {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (name: string) => unknown } })
    .process;
  try {
    return runtime?.getBuiltinModule?.(name) as Module | undefined;
  } catch {
    // A runtime that knows the function but not the module (Workers without a file system).
    return undefined;
  }
}

/**
 * Why {@link nodeBuiltin} found no `name`, for an error message: a Node older than 20.16 has no
 * `process.getBuiltinModule` (upgrade), any other runtime no such module.
 */
export function noBuiltinReason(name: string): string {
  const runtime = (
    globalThis as {
      process?: { versions?: { node?: string }; getBuiltinModule?: unknown };
    }
  ).process;
  const node = runtime?.versions?.node;
  if (node !== undefined && typeof runtime?.getBuiltinModule !== 'function') {
    return `Node ${node} cannot load ${name} synchronously (process.getBuiltinModule came in Node 20.16: upgrade)`;
  }
  return `this runtime does not have ${name}`;
}
