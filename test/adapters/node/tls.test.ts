/**
 * HTTPS through serve({ tls }): `request.tls` and `request.clientCert` come from the socket.
 * The certificates are made here with `openssl`: a CA, a server certificate for 127.0.0.1, a
 * client certificate the CA signed, and a self-signed one it did not.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeHandle } from '../../../src/adapters/node/index.js';
import { RestApplication, silentLogger } from '../../../src/index.js';
import { sleep, start } from './helpers.js';

function findOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const hasOpenssl = findOpenssl();
const MISSING = 'openssl is not installed; the TLS tests need it to make certificates';

interface Pem {
  key: string;
  cert: string;
}

let directory: string;
let ca: Pem;
let serverPem: Pem;
let client: Pem;
let rogue: Pem;
let server: ServeHandle;

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { cwd: directory, stdio: 'pipe' });
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function signed(name: string, subject: string, extensions: string): Pem {
  writeFileSync(join(directory, `${name}.ext`), extensions);
  openssl('req', ...EC, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
  openssl(
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
  );
  return read(name);
}

function read(name: string): Pem {
  return {
    key: readFileSync(join(directory, `${name}.key`), 'utf8'),
    cert: readFileSync(join(directory, `${name}.crt`), 'utf8'),
  };
}

beforeAll(async () => {
  if (!hasOpenssl) {
    if (process.env.CI === 'true') throw new Error(`${MISSING} (required in CI)`);
    return;
  }
  directory = mkdtempSync(join(tmpdir(), 'restmachine-tls-'));
  openssl(
    'req',
    '-x509',
    ...EC,
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=restmachine test CA',
  );
  ca = read('ca');
  serverPem = signed('server', '/CN=localhost', 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  client = signed('client', '/O=Example/CN=alice', 'extendedKeyUsage=clientAuth\n');
  openssl(
    'req',
    '-x509',
    ...EC,
    '-keyout',
    'rogue.key',
    '-out',
    'rogue.crt',
    '-days',
    '2',
    '-subj',
    '/CN=mallory',
  );
  rogue = read('rogue');

  const app = new RestApplication({ logger: silentLogger });
  app.get('/whoami', ({ request }) => ({
    tls: request.tls,
    protocol: request.protocol,
    clientCert: request.clientCert ?? null,
  }));
  server = await start(app, {
    tls: {
      key: serverPem.key,
      cert: serverPem.cert,
      ca: ca.cert,
      requestCert: true,
      // Unverified certificates are let through so the application sees `authorized: false`.
      rejectUnauthorized: false,
    },
  });
});

afterAll(async () => {
  await server?.close();
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
});

function whoami(identity?: Pem): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const outgoing = httpsRequest(
      {
        host: '127.0.0.1',
        port: server.port,
        path: '/whoami',
        ca: ca.cert,
        key: identity?.key,
        cert: identity?.cert,
        agent: false,
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
      },
    );
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('TLS', () => {
  it('reports an https URL and marks requests as TLS without a client certificate', async (context) => {
    if (!hasOpenssl) {
      console.info(`skipped: ${MISSING}`);
      context.skip();
    }
    expect(server.url).toBe(`https://127.0.0.1:${server.port}`);
    expect(await whoami()).toEqual({ tls: true, protocol: 'https', clientCert: null });
  });

  it('maps a client certificate the CA signed, marked authorized', async (context) => {
    if (!hasOpenssl) {
      console.info(`skipped: ${MISSING}`);
      context.skip();
    }
    const body = await whoami(client);
    const certificate = body.clientCert as Record<string, unknown>;
    expect(body.tls).toBe(true);
    expect(certificate.subject).toEqual({ O: 'Example', CN: 'alice' });
    expect(certificate.issuer).toEqual({ CN: 'restmachine test CA' });
    expect(certificate.authorized).toBe(true);
    expect(certificate.authorizationError).toBeUndefined();
    expect(certificate.serialNumber).toMatch(/^[0-9A-F]+$/);
    expect(certificate.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(typeof certificate.validTo).toBe('string');
    // The PEM is the certificate the client presented, byte for byte.
    const normalise = (pem: string) => pem.replace(/\s+/g, '');
    expect(normalise(certificate.pem as string)).toBe(normalise(client.cert));
  });

  it('reports a certificate the CA did not sign as not authorized', async (context) => {
    if (!hasOpenssl) {
      console.info(`skipped: ${MISSING}`);
      context.skip();
    }
    const certificate = (await whoami(rogue)).clientCert as Record<string, unknown>;
    expect(certificate.subject).toEqual({ CN: 'mallory' });
    expect(certificate.authorized).toBe(false);
    expect(certificate.authorizationError).toMatch(/SELF_SIGNED|self.signed|unable to verify/i);
  });
});

describe('TLS shutdown', () => {
  it('cuts a connection that never finished its handshake at shutdownTimeout', async (context) => {
    if (!hasOpenssl) {
      console.info(`skipped: ${MISSING}`);
      context.skip();
    }
    const handle = await start(new RestApplication({ logger: silentLogger }), {
      tls: { key: serverPem.key, cert: serverPem.cert },
      shutdownTimeout: 200,
    });
    // A client that opens TCP and says nothing: no handshake, unknown to the HTTP layer.
    const silent = connect(handle.port, '127.0.0.1');
    await new Promise((resolve) => silent.once('connect', resolve));
    const began = Date.now();
    await handle.close();
    // Node's own handshake timeout is 120 s; close() ends soon after the grace period.
    expect(Date.now() - began).toBeLessThan(5_000);
    silent.destroy();
  });

  it('does not wait for a connection that finished its handshake and sent no request', async (context) => {
    if (!hasOpenssl) {
      console.info(`skipped: ${MISSING}`);
      context.skip();
    }
    const handle = await start(new RestApplication({ logger: silentLogger }), {
      tls: { key: serverPem.key, cert: serverPem.cert },
      shutdownTimeout: 5_000,
    });
    // What a browser's preconnect does: TCP and TLS, then nothing until a request is needed.
    const preconnect = tlsConnect({
      port: handle.port,
      host: '127.0.0.1',
      rejectUnauthorized: false,
    });
    preconnect.on('error', () => undefined);
    await new Promise((resolve) => preconnect.once('secureConnect', resolve));
    await sleep(50);
    const began = Date.now();
    await handle.close();
    // Far below the 5 s shutdownTimeout it used to wait out.
    expect(Date.now() - began).toBeLessThan(2_000);
    preconnect.destroy();
  });
});
