/**
 * Every fenced ```ts block of README.md and docs/*.md is a complete module that must compile.
 *
 * The blocks are written, one module each, to node_modules/.cache/docs-examples/ (ignored by git)
 * and compiled together in one `ts.Program` with the repository's tsconfig options, with the
 * package's import paths (`restmachine`, `restmachine/node`, ...) mapped to their sources. Each
 * block is then one test, named by its file and line, failing with that block's diagnostics at
 * their lines in the Markdown file. Blocks that are not TypeScript use another fence tag (`sh`,
 * `yaml`, `json`, `http`, `text`); there is no tag for TypeScript that is exempt.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CodeBlock, collectBlocks } from './extract.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const outDir = join(root, 'node_modules/.cache/docs-examples');

/** Fence tags a block may carry. TypeScript is always `ts`, and always checked. */
const ALLOWED_TAGS = new Set(['ts', 'sh', 'yaml', 'json', 'http', 'text']);

const blocks = collectBlocks(root);
const tsBlocks = blocks.filter((block) => block.tag === 'ts');

function moduleFileName(block: CodeBlock): string {
  return join(outDir, `${block.file.replace(/[^A-Za-z0-9]+/g, '-')}-L${block.line}.ts`);
}

/** `restmachine`, `restmachine/node`, ... mapped to the sources their exports are built from. */
function pathsFromPackageExports(): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, string | { default?: string }>;
  };
  const paths: Record<string, string[]> = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const built = typeof target === 'string' ? target : target.default;
    if (built === undefined || !built.startsWith('./dist/') || !built.endsWith('.js')) continue;
    const source = `./src/${built.slice('./dist/'.length, -'.js'.length)}.ts`;
    paths[subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`] = [source];
  }
  return paths;
}

function compilerOptions(): ts.CompilerOptions {
  const read = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const config = read.config as { compilerOptions?: Record<string, unknown> };
  const parsed = ts.parseJsonConfigFileContent(
    { compilerOptions: { ...config.compilerOptions, paths: pathsFromPackageExports() }, files: [] },
    ts.sys,
    root,
  );
  return {
    ...parsed.options,
    noEmit: true,
    // Every block is a module of its own, even one without imports.
    moduleDetection: ts.ModuleDetectionKind.Force,
  };
}

function describeDiagnostic(block: CodeBlock, diagnostic: ts.Diagnostic): string {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ');
  if (diagnostic.file === undefined || diagnostic.start === undefined) {
    return `${block.file}:${block.line}: TS${diagnostic.code}: ${message}`;
  }
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  // The block's first line is the line after the opening fence.
  return `${block.file}:${block.line + 1 + line}:${character + 1}: TS${diagnostic.code}: ${message}`;
}

let program: ts.Program;
/** Each block's diagnostics, by block, computed once for all of them. */
const diagnosticsOf = new Map<CodeBlock, string[]>();

beforeAll(() => {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  // The examples are ES modules (top-level await), as in a `"type": "module"` package.
  writeFileSync(join(outDir, 'package.json'), '{ "type": "module", "private": true }\n');
  for (const block of tsBlocks) writeFileSync(moduleFileName(block), block.code);
  program = ts.createProgram(tsBlocks.map(moduleFileName), compilerOptions());
  for (const block of tsBlocks) {
    const source = program.getSourceFile(moduleFileName(block));
    if (source === undefined) continue;
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ];
    diagnosticsOf.set(
      block,
      diagnostics.map((diagnostic) => describeDiagnostic(block, diagnostic)),
    );
  }
}, 120_000);

describe('documentation', () => {
  it('has TypeScript examples to check', () => {
    expect(tsBlocks.length).toBeGreaterThan(20);
  });

  it('tags every code block with a known fence tag', () => {
    const unknown = blocks
      .filter((block) => !ALLOWED_TAGS.has(block.tag))
      .map((block) => `${block.file}:${block.line}: \`\`\`${block.tag || '(no tag)'}`);
    expect(unknown, `allowed: ${[...ALLOWED_TAGS].join(', ')}`).toEqual([]);
  });

  it('compiles with the repository options', () => {
    const messages = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map(
      (diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
    );
    expect(messages).toEqual([]);
  });
});

describe.each(tsBlocks.map((block) => [`${block.file}:${block.line}`, block] as const))(
  'the ts block at %s',
  (_name, block) => {
    it('type-checks', () => {
      const diagnostics = diagnosticsOf.get(block);
      expect(diagnostics, 'the block was compiled').toBeDefined();
      expect(diagnostics?.join('\n'), `\n${block.code}`).toBe('');
    });
  },
);
