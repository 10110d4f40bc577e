/**
 * Under `exactOptionalPropertyTypes` an optional property takes `undefined` only where its type
 * says `| undefined`: the public options and inits do, since the run time takes `undefined` as
 * absent. The repository's tsconfig leaves the flag off (the sources are not written for it), so
 * this test compiles exact-optional/forward-undefined.ts with it on and reports that module's
 * diagnostics only, then runs it.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MULTIPART_LIMITS } from '../../src/app/uploads/limits.js';
import { forwardUndefined } from './exact-optional/forward-undefined.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const fixture = join(root, 'test/types/exact-optional/forward-undefined.ts');

function exactOptionalDiagnostics(): string[] {
  const read = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(
    { ...(read.config as object), files: [fixture], include: [] },
    ts.sys,
    root,
  );
  const program = ts.createProgram([fixture], {
    ...parsed.options,
    exactOptionalPropertyTypes: true,
    noEmit: true,
  });
  const source = program.getSourceFile(fixture);
  if (source === undefined) return [`${fixture} is not in the program`];
  return [
    ...program.getSyntacticDiagnostics(source),
    ...program.getSemanticDiagnostics(source),
  ].map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

describe('options given undefined', () => {
  it('compile under exactOptionalPropertyTypes', () => {
    expect(exactOptionalDiagnostics()).toEqual([]);
  }, 120_000);

  it('are taken as absent at run time', async () => {
    expect(await forwardUndefined(undefined)).toEqual({
      multipart: DEFAULT_MULTIPART_LIMITS,
      request: [200, 'hi'],
      client: [200, {}],
      config: { port: 1 },
      served: [200, 'hi'],
    });
  });
});
