/**
 * The package as a user gets it: `npm pack` of a fresh build, installed into an empty
 * project, imported from every subpath by a strict TypeScript file with `skipLibCheck: false`,
 * type-checked without the optional peers and again with them, and run.
 *
 * The build runs in a copy of the sources under os.tmpdir(), so the working tree's dist/ is
 * neither needed nor touched. The project's dependencies (ajv, ajv-formats, yaml, jsonc-parser...) come from
 * npm's cache where it has them (`--prefer-offline`); TypeScript and @types/node, the tools
 * any TypeScript project brings, are this repository's, linked in rather than downloaded.
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
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

async function typecheck(): Promise<string> {
  try {
    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project });
    return '';
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message: string };
    return `${failure.stdout ?? ''}${failure.stderr ?? ''}` || failure.message;
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'restmachine-package-'));
  // A copy of what the build reads, so the build and `npm pack` leave the working tree as it is.
  const stage = join(work, 'stage');
  mkdirSync(stage);
  for (const entry of ['src', 'scripts', 'docs', 'package.json', 'README.md', 'LICENSE']) {
    cpSync(join(root, entry), join(stage, entry), { recursive: true });
  }
  for (const entry of ['tsconfig.json', 'tsconfig.build.json']) {
    cpSync(join(root, entry), join(stage, entry));
  }
  symlinkSync(join(root, 'node_modules'), join(stage, 'node_modules'), 'dir');
  await run(process.execPath, ['scripts/build.mjs'], { cwd: stage });
  const packed = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: stage });
  const [info] = JSON.parse(packed.stdout) as Array<{
    filename: string;
    files: { path: string }[];
  }>;
  tarball = join(work, (info as { filename: string }).filename);

  project = join(work, 'project');
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  writeFileSync(join(project, 'src', 'main.ts'), CONSUMER);
  await run(
    'npm',
    ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'],
    { cwd: project },
  );
  mkdirSync(join(project, 'node_modules', '@types'), { recursive: true });
  symlinkSync(
    join(root, 'node_modules', '@types', 'node'),
    join(project, 'node_modules', '@types', 'node'),
    'dir',
  );
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
    mkdirSync(join(project, 'node_modules', '@aws-sdk'), { recursive: true });
    symlinkSync(
      join(root, 'node_modules', '@aws-sdk', 'client-s3'),
      join(project, 'node_modules', '@aws-sdk', 'client-s3'),
      'dir',
    );
    symlinkSync(
      join(root, 'node_modules', '@types', 'aws-lambda'),
      join(project, 'node_modules', '@types', 'aws-lambda'),
      'dir',
    );
    writeFileSync(join(project, 'src', 'peers.ts'), WITH_PEERS);
    expect(await typecheck()).toBe('');
  }, 120_000);
});
