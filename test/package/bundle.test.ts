/**
 * The installed package bundled as users bundle it for AWS Lambda (docs/aws-lambda.md,
 * Bundling): esbuild with `--bundle --platform=node`, as ESM and as CommonJS (esbuild's default
 * for Node), every dependency included, and each bundle run alone from a directory of its own,
 * where no node_modules can be found.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Installed, packAndInstall, run } from './packed.js';

let installed: Installed;

beforeAll(async () => {
  installed = await packAndInstall();
}, 240_000);

afterAll(() => {
  if (installed !== undefined) rmSync(installed.work, { recursive: true, force: true });
});

const FORMATS = ['esm', 'cjs'] as const;

/** Bundles `source` (a file of the user's project) into a directory of its own, and runs it there. */
async function bundleAndRun(source: string, format: 'esm' | 'cjs'): Promise<string[]> {
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
    logLevel: 'silent',
  });
  const { stdout } = await run(process.execPath, [outfile], { cwd: deploy });
  return stdout.trim().split('\n');
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

describe.each(FORMATS)('a bundle of the package as %s, run alone', (format) => {
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
});
