/**
 * The installed package bundled as users bundle it for AWS Lambda (docs/aws-lambda.md,
 * Bundling): esbuild with `--bundle --platform=node`, as ESM and as CommonJS (esbuild's default
 * for Node), every dependency included, and each bundle run alone from a directory of its own,
 * where no node_modules can be found but the ones it reads files from.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { type S3TestServer, startS3Server } from '../static/s3-server.js';
import { type Installed, linkFromRepository, packAndInstall, run } from './packed.js';

let installed: Installed;
let s3: S3TestServer | string;
/** LOCAL_FILES bundled as each format before the optional peers were installed. */
const withoutPeers = new Map<'esm' | 'cjs', string>();

beforeAll(async () => {
  [installed, s3] = await Promise.all([packAndInstall(), startS3Server()]);
  for (const format of FORMATS) withoutPeers.set(format, await bundle(LOCAL_FILES, format));
  // The optional peers, installed in the user's project (and so bundled where imported).
  linkFromRepository(installed.project, '@aws-sdk/client-s3');
  linkFromRepository(installed.project, 'swagger-ui-dist');
  if (typeof s3 === 'string') return;
  const client = new S3Client(s3.config);
  await client.send(new CreateBucketCommand({ Bucket: 'site' }));
  await client.send(new PutObjectCommand({ Bucket: 'site', Key: 'www/hello.txt', Body: 'hello' }));
}, 240_000);

afterAll(async () => {
  if (typeof s3 === 'object') await s3.stop();
  if (installed !== undefined) rmSync(installed.work, { recursive: true, force: true });
});

const FORMATS = ['esm', 'cjs'] as const;

/** Bundles `source` (a file of the user's project) into a directory of its own: the bundle's path. */
async function bundle(
  source: string,
  format: 'esm' | 'cjs',
  mainFields?: string[],
): Promise<string> {
  const { project, work } = installed;
  const entry = join(mkdtempSync(join(project, 'src', 'entry-')), 'main.ts');
  writeFileSync(entry, source);
  const deploy = mkdtempSync(join(work, 'deploy-'));
  const outfile = join(deploy, format === 'esm' ? 'main.mjs' : 'main.cjs');
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format,
    target: 'node20',
    outfile,
    absWorkingDir: project,
    ...(mainFields === undefined ? {} : { mainFields }),
    logLevel: 'silent',
  });
  return outfile;
}

/** Runs a bundle alone in its directory, with `beside` installed in a node_modules there. */
async function runBundle(
  outfile: string,
  { beside = [], env = {} }: { beside?: string[]; env?: Record<string, string> } = {},
): Promise<string[]> {
  const deploy = dirname(outfile);
  for (const name of beside) linkFromRepository(deploy, name);
  const { stdout } = await run(process.execPath, [outfile], {
    cwd: deploy,
    env: { ...process.env, ...env },
  });
  return stdout.trim().split('\n');
}

/** Bundles `source` as {@link bundle} does and runs it as {@link runBundle} does. */
async function bundleAndRun(
  source: string,
  format: 'esm' | 'cjs',
  {
    beside = [],
    env = {},
    mainFields,
  }: { beside?: string[]; env?: Record<string, string>; mainFields?: string[] } = {},
): Promise<string[]> {
  return runBundle(await bundle(source, format, mainFields), { beside, env });
}

/** A Lambda handler with an upload route, given a multipart/form-data event. */
const UPLOAD = `
import { RestApplication } from 'restmachine';
import { CloudGatewayAdapter } from 'restmachine/aws';

const app = new RestApplication();
app.post('/up', ({ files, formBody }) => ({
  files: files.map((file) => [file.filename, file.size]),
  formBody,
}));
const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });

const body = [
  '--XyZ',
  'Content-Disposition: form-data; name="title"',
  '',
  'hello',
  '--XyZ',
  'Content-Disposition: form-data; name="file"; filename="a.txt"',
  'Content-Type: text/plain',
  '',
  'file content',
  '--XyZ--',
  '',
].join('\\r\\n');
adapter
  .handleEvent({
    version: '2.0',
    routeKey: '$default',
    rawPath: '/up',
    rawQueryString: '',
    headers: { host: 'example.com', 'content-type': 'multipart/form-data; boundary=XyZ' },
    requestContext: {
      accountId: '1', apiId: 'api', domainName: 'example.com', domainPrefix: 'example',
      http: { method: 'POST', path: '/up', protocol: 'HTTP/1.1', sourceIp: '192.0.2.1', userAgent: 'test' },
      requestId: 'id', routeKey: '$default', stage: '$default',
      time: '01/Jan/2026:00:00:00 +0000', timeEpoch: 1767225600000,
    },
    body: Buffer.from(body).toString('base64'),
    isBase64Encoded: true,
  })
  .then((result) => console.log(result.statusCode, result.body));
`;

/** A configuration file in JSONC, validated by a schema of each dialect. */
const CONFIG = `
import { writeFileSync } from 'node:fs';
import { Config, Schema } from 'restmachine/config';

writeFileSync('settings.jsonc', '{\\n  // the port\\n  "port": "\${env:PORT,default=8080}",\\n  "hosts": ["a", "b"],\\n}\\n');
const dialects = {
  'draft-06': 'http://json-schema.org/draft-06/schema#',
  '2019-09': 'https://json-schema.org/draft/2019-09/schema',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
};
for (const [name, dialect] of Object.entries(dialects)) {
  const schema = Schema.fromObject({
    $schema: dialect,
    type: 'object',
    properties: { port: { type: 'integer' }, hosts: { type: 'array', items: { type: 'string' } } },
  });
  const settings = Config.fromYamlFile('settings.jsonc', { env: {} }).validate(schema);
  console.log(name, JSON.stringify(settings));
}
`;

/** The API reference page, whose scripts and styles are read from swagger-ui-dist on disk. */
const REFERENCE_PAGE = `
import { RestApplication } from 'restmachine';
import { openapiRouter } from 'restmachine/openapi';

const app = new RestApplication();
app.get('/notes', () => []);
app.mount('/', openapiRouter(app, { info: { title: 'Notes', version: '1.0.0' } }));
Promise.all(['/openapi.json', '/docs/', '/docs/assets/swagger-ui.css'].map((path) => app.request(path)))
  .then((answers) => console.log(answers.map((answer) => answer.statusCode).join(' ')));
`;

/** Local files and the API description, which need neither optional peer (docs/aws-lambda.md). */
const LOCAL_FILES = `
import { mkdirSync, writeFileSync } from 'node:fs';
import { RestApplication } from 'restmachine';
import { FetchAdapter } from 'restmachine/fetch';
import { openapiRouter } from 'restmachine/openapi';
import { StaticRouter } from 'restmachine/static';

mkdirSync('public', { recursive: true });
writeFileSync('public/hello.txt', 'hello');
const app = new RestApplication();
app.get('/notes', () => []);
app.mount('/api', openapiRouter(app, { info: { title: 'Notes', version: '1.0.0' }, docs: false }));
app.mount('/', new StaticRouter('public'));
const { fetch } = new FetchAdapter(app);
Promise.all([fetch(new Request('http://localhost/api/openapi.json')), fetch(new Request('http://localhost/hello.txt'))])
  .then(async ([description, file]) => console.log(description.status, file.status, await file.text()));
`;

/**
 * A file from S3 through the SDK bundled in, passed as \`s3Sdk\` (the router's own import of it
 * is one esbuild does not follow); the server's settings come in S3_CONFIG.
 */
const FROM_S3 = `
import * as S3 from '@aws-sdk/client-s3';
import { RestApplication } from 'restmachine';
import { FetchAdapter } from 'restmachine/fetch';
import { StaticRouter } from 'restmachine/static';

const app = new RestApplication();
const s3 = JSON.parse(process.env.S3_CONFIG ?? '{}');
app.mount('/', new StaticRouter('s3://site/www/', { s3, s3Sdk: S3 }));
new FetchAdapter(app)
  .fetch(new Request('http://localhost/hello.txt'))
  .then(async (answer) => console.log(answer.status, await answer.text()));
`;

function needS3(context: TestContext): S3TestServer {
  if (typeof s3 === 'string') context.skip(s3);
  return s3 as S3TestServer;
}

describe.each(FORMATS)('a bundle of the package as %s, run alone', (format) => {
  it('serves local files and the API description, bundled without the optional peers installed', async () => {
    expect(await runBundle(withoutPeers.get(format) as string)).toEqual(['200 200 hello']);
  }, 60_000);

  it('reads a multipart upload (the parser bundled with the package, requiring no Node module)', async () => {
    expect(await bundleAndRun(UPLOAD, format)).toEqual([
      '200 {"files":[["a.txt",12]],"formBody":{"title":"hello"}}',
    ]);
  }, 60_000);

  it('loads a JSONC configuration and validates it with schemas of every dialect', async () => {
    expect(await bundleAndRun(CONFIG, format)).toEqual([
      'draft-06 {"port":8080,"hosts":["a","b"]}',
      '2019-09 {"port":8080,"hosts":["a","b"]}',
      '2020-12 {"port":8080,"hosts":["a","b"]}',
    ]);
  }, 60_000);

  it('serves the API reference page from swagger-ui-dist installed beside it', async () => {
    const beside = ['swagger-ui-dist'];
    expect(await bundleAndRun(REFERENCE_PAGE, format, { beside })).toEqual(['200 200 200']);
  }, 60_000);

  it('serves a file from S3 with the SDK bundled in', async (context) => {
    const env = { S3_CONFIG: JSON.stringify(needS3(context).config) };
    // The SDK's Node build is CommonJS that require()s Node modules: an ESM bundle takes its
    // ESM build (docs/aws-lambda.md, Bundling).
    const mainFields = format === 'esm' ? ['module', 'main'] : undefined;
    expect(await bundleAndRun(FROM_S3, format, { env, mainFields })).toEqual(['200 hello']);
  }, 60_000);
});
