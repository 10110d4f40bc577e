/**
 * The package as a user gets it: `npm pack` of a fresh build, installed into an empty
 * project, imported from every subpath by a strict TypeScript file with `skipLibCheck: false`,
 * type-checked without the optional peers and again with them, and run.
 *
 * Declaration files too: an application, a router and a client exported with their inferred
 * types compile with `declaration: true` under `nodenext` and `bundler` resolution, which needs
 * every type those reach to be exported by an entry point (else TS2742), and a walk of the
 * installed declarations checks that for every public type.
 *
 * The package is packed and installed by packed.ts; TypeScript and @types/node, the tools any
 * TypeScript project brings, are this repository's, linked in rather than downloaded.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headingAnchors, relativeLinks } from './markdown-links.js';
import { linkFromRepository, packAndInstall, root, run } from './packed.js';

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

/** Imports every subpath and uses each one, type-checked strictly and then run. */
const CONSUMER = `
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RestApplication, Response, silentLogger } from 'restmachine';
import { CloudGatewayAdapter, type APIGatewayProxyEventV2 } from 'restmachine/aws';
import { Config, Schema } from 'restmachine/config';
import { FetchAdapter } from 'restmachine/fetch';
import { serve } from 'restmachine/node';
import { createClient } from 'restmachine/client';
import { type OpenApiDocument, openapi, openapiRouter } from 'restmachine/openapi';
import { StaticRouter, type StaticRouterOptions } from 'restmachine/static';

const app = new RestApplication({ logger: silentLogger })
  .onStartup('greeting', () => 'hello');
app.get('/hello/{name}', ({ greeting, pathParams }) => ({ message: \`\${greeting} \${pathParams.name}\` }));
app.post('/echo', ({ body }) => new Response(201, body));

const site = mkdtempSync(join(tmpdir(), 'restmachine-consumer-'));
writeFileSync(join(site, 'index.html'), '<h1>site</h1>');
const staticOptions: StaticRouterOptions = { indexFile: 'index.html' };
app.mount('/site', new StaticRouter(site, staticOptions));

const inProcess = await app.request('/hello/in-process');
console.log('core', inProcess.statusCode);

const server = await serve(app, { port: 0, host: '127.0.0.1', handleSignals: false });
const overHttp = await fetch(\`\${server.url}/hello/node\`);
console.log('node', overHttp.status, JSON.stringify(await overHttp.json()));
const page = await fetch(\`\${server.url}/site/\`);
console.log('static', page.status, await page.text());

const fetched = await new FetchAdapter(app).fetch(new Request('http://localhost/hello/fetch'));
console.log('fetch', fetched.status, JSON.stringify(await fetched.json()));

const event: APIGatewayProxyEventV2 = {
  version: '2.0',
  routeKey: '$default',
  rawPath: '/hello/lambda',
  rawQueryString: '',
  headers: { host: 'example.execute-api.eu-west-1.amazonaws.com' },
  requestContext: {
    accountId: '123456789012',
    apiId: 'example',
    domainName: 'example.execute-api.eu-west-1.amazonaws.com',
    domainPrefix: 'example',
    http: { method: 'GET', path: '/hello/lambda', protocol: 'HTTP/1.1', sourceIp: '192.0.2.1', userAgent: 'test' },
    requestId: 'id',
    routeKey: '$default',
    stage: '$default',
    time: '01/Jan/2026:00:00:00 +0000',
    timeEpoch: 1767225600000,
  },
  isBase64Encoded: false,
};
const lambda = new CloudGatewayAdapter(app, { metricsPublisher: null });
const result = await lambda.handleEvent(event);
console.log('aws', result.statusCode, result.body);
// Closing runs the shutdown handlers: the application answers 503 from then on.
await server.close();
const closed = await app.request('/hello/after');
console.log('closed', closed.statusCode);

const schema = Schema.fromObject({ type: 'object', properties: { port: { type: 'integer' } } });
const settings = Config.fromYaml('port: \${env:PORT,default=8080}\\n', { env: {} }).validate<{ port: number }>(schema);
console.log('config', JSON.stringify(settings));
const document: OpenApiDocument = openapi(app, { info: { title: 'Consumer', version: '1' } });
console.log('openapi', document.openapi, Object.keys(document.paths).join(' '));
try {
  openapiRouter(app, { info: { title: 'Consumer', version: '1' } });
} catch (error) {
  console.log('reference page', (error as Error).message.includes('npm install swagger-ui-dist'));
}
const typed = new RestApplication({ logger: silentLogger }).withRoutes((r) => [
  r.get('/typed/{id}', ({ id }) => ({ id })),
]);
const typedClient = createClient<typeof typed>({ app: typed });
const answer = await typedClient.get('/typed/{id}', { params: { id: '7' } });
if (answer.status === 200) console.log('client', answer.status, answer.data.id);
rmSync(site, { recursive: true, force: true });
`;

/** Uses the optional peers' own types with restmachine's: compiled only where they are installed. */
const WITH_PEERS = `
import { S3Client } from '@aws-sdk/client-s3';
import type { APIGatewayProxyEventV2 as AwsEvent, Context } from 'aws-lambda';
import { RestApplication } from 'restmachine';
import { CloudGatewayAdapter } from 'restmachine/aws';
import type { StaticRouterOptions } from 'restmachine/static';

export const client: StaticRouterOptions = { s3: new S3Client({ region: 'eu-west-1' }) };
export const config: StaticRouterOptions = { s3: { region: 'eu-west-1', maxAttempts: 2 } };
const adapter = new CloudGatewayAdapter(new RestApplication());
export async function invoke(event: AwsEvent, context: Context): Promise<unknown> {
  return adapter.handleEvent(event, context);
}
export const handler = adapter.handler;
`;

/** An application and a router exported with their inferred types (docs/openapi.md). */
const DECLARED_API = `
import { RestApplication } from 'restmachine';
import * as z from 'zod';

export const api = new RestApplication()
  .validates('newNote', z.object({ text: z.string() }))
  .withRoutes((r) => [r.post('/notes', ({ newNote }) => [newNote, 201] as const).uses('newNote')]);
`;

const DECLARED_ROUTER = `
import { Router } from 'restmachine';

export const admin = new Router()
  .authorized('user', ({ headers }) => headers.get('authorization'))
  .dependency('audit', () => [] as string[]);
`;

/** Typed clients of the exported application, in another module: inferred, and by type argument. */
const DECLARED_CLIENT = `
import { createClient } from 'restmachine/client';
import { api } from './api.js';

export const client = createClient({ app: api });
export const remote = createClient<typeof api>({ baseUrl: 'http://127.0.0.1:3000' });
export const createNote = (text: string) => client.post('/notes', { json: { text } });
export const post = remote.post;
`;

/** The options of the declaration check: `module` and `moduleResolution` come per run. */
const DECLARATION_OPTIONS = {
  target: 'ES2022',
  lib: ['ES2023'],
  types: ['node'],
  strict: true,
  declaration: true,
  emitDeclarationOnly: true,
  skipLibCheck: true,
};

/**
 * Types the declaration walk finds reachable but exported by no entry point, which this check
 * lets pass: local type aliases, which declaration emit writes out in full.
 */
const LOCAL_ALIASES = new Set([
  'restmachine/dist/app/representable.d.ts IsAny',
  'restmachine/dist/app/representable.d.ts SeenMembers',
  'restmachine/dist/app/representable.d.ts Found',
  'restmachine/dist/app/logger.d.ts Level',
]);

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    lib: ['ES2023'],
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: false,
    outDir: 'out',
  },
  include: ['src'],
};

let work: string;
let project: string;
let tarball: string;

async function typecheck(cwd = project, config = 'tsconfig.json'): Promise<string> {
  try {
    await run(process.execPath, [tsc, '-p', config], { cwd });
    return '';
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message: string };
    return `${failure.stdout ?? ''}${failure.stderr ?? ''}` || failure.message;
  }
}

beforeAll(async () => {
  ({ work, tarball, project } = await packAndInstall());
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  writeFileSync(join(project, 'src', 'main.ts'), CONSUMER);
  linkFromRepository(project, '@types/node');
}, 240_000);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('holds dist/, the README and the docs it links to, and no sources or tests', async () => {
    const listing = await run('tar', ['-tzf', tarball]);
    const files = listing.stdout.split('\n').filter(Boolean);
    expect(files).toContain('package/package.json');
    expect(files).toContain('package/README.md');
    expect(files).toContain('package/LICENSE');
    expect(files).toContain('package/dist/index.js');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files).toContain('package/docs/example-application.md');
    expect(files.some((file) => file.startsWith('package/src/'))).toBe(false);
    expect(files.some((file) => file.startsWith('package/test/'))).toBe(false);
  });

  it('holds every file and heading its README and docs link to', async () => {
    const unpacked = join(work, 'linked');
    mkdirSync(unpacked, { recursive: true });
    await run('tar', ['-xzf', tarball, '-C', unpacked]);
    const packageRoot = join(unpacked, 'package');
    const pages = [
      'README.md',
      ...readdirSync(join(packageRoot, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`),
    ];
    const read = (page: string) => readFileSync(join(packageRoot, page), 'utf8');
    const broken: string[] = [];
    for (const page of pages) {
      for (const target of relativeLinks(read(page))) {
        const [file = '', anchor] = target.split('#');
        const linked = file === '' ? page : posix.join(posix.dirname(page), file);
        if (!existsSync(join(packageRoot, linked))) broken.push(`${page} -> ${target}`);
        else if (anchor !== undefined && linked.endsWith('.md')) {
          if (!headingAnchors(read(linked)).has(anchor)) broken.push(`${page} -> ${target}`);
        }
      }
    }
    expect(pages).toContain('docs/performance.md');
    expect(broken).toEqual([]);
  });

  it('holds no source map that points at a file it does not hold', async () => {
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked, { recursive: true });
    await run('tar', ['-xzf', tarball, '-C', unpacked]);
    const listing = await run('tar', ['-tzf', tarball]);
    const maps = listing.stdout.split('\n').filter((file) => file.endsWith('.map'));
    expect(maps).toContain('package/dist/index.js.map');
    const missing: string[] = [];
    for (const map of maps) {
      const { sources, sourcesContent } = JSON.parse(readFileSync(join(unpacked, map), 'utf8')) as {
        sources: string[];
        sourcesContent?: Array<string | null>;
      };
      sources.forEach((source, i) => {
        // A source given inline needs no file; otherwise the file must be in the package.
        if (typeof sourcesContent?.[i] === 'string') return;
        if (!existsSync(join(unpacked, dirname(map), source))) missing.push(`${map} -> ${source}`);
      });
    }
    expect(missing).toEqual([]);
  });

  it('installs without the optional peers', () => {
    const installed = readdirSync(join(project, 'node_modules'));
    expect(installed).toContain('restmachine');
    expect(installed).not.toContain('@aws-sdk');
    expect(readdirSync(join(project, 'node_modules', '@types'))).toEqual(['node']);
  });

  it('type-checks strictly with skipLibCheck false without the optional peers, and runs', async () => {
    expect(await typecheck()).toBe('');
    const output = await run(process.execPath, ['out/main.js'], { cwd: project });
    expect(output.stdout.split('\n')).toEqual([
      'core 200',
      'node 200 {"message":"hello node"}',
      'static 200 <h1>site</h1>',
      'fetch 200 {"message":"hello fetch"}',
      'aws 200 {"message":"hello lambda"}',
      'closed 503',
      'config {"port":8080}',
      'openapi 3.1.1 /hello/{name} /echo /site/{path}',
      'reference page true',
      'client 200 7',
      '',
    ]);
  }, 120_000);

  it('type-checks with the optional peers installed, against their own types', async () => {
    // The peers this repository has, linked in the way `npm install` would place them.
    linkFromRepository(project, '@aws-sdk/client-s3');
    linkFromRepository(project, '@types/aws-lambda');
    writeFileSync(join(project, 'src', 'peers.ts'), WITH_PEERS);
    expect(await typecheck()).toBe('');
  }, 120_000);
});

describe('declaration files of code using the package', () => {
  let decl: string;

  beforeAll(() => {
    // Beside the consumer project, resolving restmachine from its node_modules; zod, which the
    // snippets use, linked in as the consumer's own dependency would be installed.
    decl = join(project, 'decl');
    mkdirSync(join(decl, 'src'), { recursive: true });
    mkdirSync(join(decl, 'node_modules'), { recursive: true });
    symlinkSync(join(root, 'node_modules', 'zod'), join(decl, 'node_modules', 'zod'), 'dir');
    writeFileSync(
      join(decl, 'package.json'),
      JSON.stringify({ name: 'declarations', private: true, type: 'module' }),
    );
    writeFileSync(join(decl, 'src', 'api.ts'), DECLARED_API);
    writeFileSync(join(decl, 'src', 'router.ts'), DECLARED_ROUTER);
    writeFileSync(join(decl, 'src', 'client.ts'), DECLARED_CLIENT);
    const resolutions = {
      nodenext: { module: 'NodeNext', moduleResolution: 'NodeNext' },
      bundler: { module: 'ESNext', moduleResolution: 'Bundler' },
    };
    for (const [name, resolution] of Object.entries(resolutions)) {
      const config = {
        compilerOptions: { ...DECLARATION_OPTIONS, ...resolution, outDir: `out-${name}` },
        include: ['src'],
      };
      writeFileSync(join(decl, `tsconfig.${name}.json`), JSON.stringify(config, null, 2));
    }
  });

  it.each(['nodenext', 'bundler'])(
    'emit for an exported application, router and client under %s resolution',
    async (resolution) => {
      expect(await typecheck(decl, `tsconfig.${resolution}.json`)).toBe('');
      const out = join(decl, `out-${resolution}`);
      const api = readFileSync(join(out, 'api.d.ts'), 'utf8');
      const client = readFileSync(join(out, 'client.d.ts'), 'utf8');
      // Named through the package's entry points, never a path into it.
      for (const text of [api, client, readFileSync(join(out, 'router.d.ts'), 'utf8')]) {
        expect(text).not.toMatch(/node_modules|dist\//);
      }
      expect(api).toContain('import("restmachine").CarriesRoutes<');
      // The client is typed from the application: its call names the route's shape.
      expect(client).toContain('import("restmachine/client").Client<');
      expect(client).toContain('"/notes"');
    },
    60_000,
  );

  it('name no typed array with a type argument, which TypeScript before 5.7 rejects', () => {
    // TypeScript 5.7 made the typed arrays generic (`Uint8Array<ArrayBuffer>`); 5.0 to 5.6 stop
    // at such a declaration with TS2315 under `skipLibCheck: false`.
    const generic =
      /\b(?:(?:Big)?(?:Int|Uint|Float)(?:8|16|32|64)(?:Clamped)?Array|DataView|ArrayBufferView|Buffer)</;
    const dist = join(project, 'node_modules', 'restmachine', 'dist');
    const found = readdirSync(dist, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.d.ts'))
      .flatMap((file) =>
        readFileSync(join(dist, file), 'utf8')
          .split('\n')
          .filter((line) => generic.test(line))
          .map((line) => `${file}: ${line.trim()}`),
      );
    expect(found).toEqual([]);
  });

  it('can name every type a public declaration reaches', async () => {
    const { default: ts } = await import('typescript');
    const packageDir = join(project, 'node_modules', 'restmachine');
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
      exports: Record<string, string | { types?: string }>;
    };
    const entries = Object.entries(manifest.exports).flatMap(([subpath, target]) =>
      typeof target === 'object' && target.types !== undefined
        ? [[subpath, join(packageDir, target.types)] as const]
        : [],
    );
    const program = ts.createProgram(
      entries.map(([, file]) => file),
      {
        strict: true,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        types: ['node'],
        typeRoots: [join(project, 'node_modules', '@types')],
        skipLibCheck: true,
        noEmit: true,
      },
    );
    expect(unexportedTypes(ts, program, packageDir, entries)).toEqual([]);
  }, 60_000);
});

type TypeScript = typeof import('typescript');

/**
 * The named declarations of the package (interfaces, type aliases, classes, enums, unique
 * symbols) that the declarations of its entry points' exports reach, through any type reference,
 * heritage clause, `typeof` or computed key, and that no entry point exports: the types
 * `tsc --declaration` could not name in code that uses the package (TS2742). A namespace's member
 * is named through its namespace. Each as `restmachine/<file> <name> (reached from <export>)`,
 * less LOCAL_ALIASES.
 */
function unexportedTypes(
  ts: TypeScript,
  program: import('typescript').Program,
  packageDir: string,
  entries: ReadonlyArray<readonly [string, string]>,
): string[] {
  type TsSymbol = import('typescript').Symbol;
  type Node = import('typescript').Node;
  const checker = program.getTypeChecker();
  const target = (symbol: TsSymbol | undefined) =>
    symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias
      ? checker.getAliasedSymbol(symbol)
      : symbol;
  const ours = (node: Node) => node.getSourceFile().fileName.startsWith(packageDir);
  const exported = new Set<TsSymbol>();
  const queue: Array<[TsSymbol, string]> = [];
  for (const [subpath, file] of entries) {
    const source = program.getSourceFile(file);
    const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (module === undefined) throw new Error(`${file}: no module`);
    for (const symbol of checker.getExportsOfModule(module)) {
      const resolved = target(symbol) as TsSymbol;
      exported.add(resolved);
      queue.push([resolved, `${subpath.replace(/^\./, 'restmachine')} ${symbol.name}`]);
    }
  }
  const seen = new Set<TsSymbol>(exported);
  const missing: string[] = [];
  const reach = (name: Node, from: string) => {
    let symbol = target(checker.getSymbolAtLocation(name));
    let declaration = symbol?.declarations?.find(ours);
    if (symbol === undefined || declaration === undefined) return;
    if (symbol.flags & ts.SymbolFlags.TypeParameter) return;
    // The statement the declaration belongs to, at the top of its file.
    let top: Node = declaration;
    while (!ts.isSourceFile(top.parent)) top = top.parent;
    if (top !== declaration && !ts.isVariableStatement(top)) {
      // A member (of a class, an interface, a namespace...): named through its container.
      if (!ts.isModuleDeclaration(top)) return;
      symbol = target(checker.getSymbolAtLocation(top.name));
      declaration = top;
      if (symbol === undefined) return;
    }
    if (seen.has(symbol)) return;
    seen.add(symbol);
    const file = declaration.getSourceFile().fileName.slice(packageDir.length + 1);
    const key = `restmachine/${file} ${symbol.name}`;
    if (!LOCAL_ALIASES.has(key)) missing.push(`${key} (reached from ${from})`);
    queue.push([symbol, from]);
  };
  const leftmost = (name: Node): Node => {
    let node = name;
    while (ts.isQualifiedName(node)) node = node.left;
    while (ts.isPropertyAccessExpression(node)) node = node.expression;
    return node;
  };
  const walk = (node: Node, from: string): void => {
    if (ts.isTypeReferenceNode(node)) reach(leftmost(node.typeName), from);
    else if (ts.isExpressionWithTypeArguments(node)) reach(leftmost(node.expression), from);
    else if (ts.isTypeQueryNode(node)) reach(leftmost(node.exprName), from);
    else if (ts.isComputedPropertyName(node)) reach(leftmost(node.expression), from);
    ts.forEachChild(node, (child) => walk(child, from));
  };
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const [symbol, from] = next;
    for (const declaration of symbol.declarations ?? []) {
      if (ours(declaration)) walk(declaration, from);
    }
  }
  return missing.sort();
}
