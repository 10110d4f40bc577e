/**
 * A gateway's client certificate subject and issuer arrive as RFC 4514 strings; the request
 * carries them as the object Node's `getPeerCertificate()` gives (docs/aws-lambda.md), so a
 * handler reading `clientCert.subject.CN` runs the same on every adapter.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDistinguishedName } from '../../../src/adapters/aws/distinguished-name.js';
import { CloudGatewayAdapter } from '../../../src/adapters/aws/index.js';
import { serve } from '../../../src/adapters/node/index.js';
import { RestApplication, silentLogger } from '../../../src/index.js';
import { albEvent, readAlbResult } from './fixtures.js';

type Name = Record<string, string | string[]>;
type Style = 'backslash' | 'hex' | 'quoted';

const UTF8 = new TextEncoder();

/** Every UTF-8 byte of `char` as a `\XX` pair (RFC 4514 §2.4, `hexpair`). */
function hexEscaped(char: string): string {
  return Array.from(UTF8.encode(char), (byte) => `\\${byte.toString(16).padStart(2, '0')}`).join(
    '',
  );
}

/** `value` as RFC 4514 §2.4 writes it, its specials escaped in the given style. */
function formatValue(value: string, style: Style): string {
  if (style === 'quoted') return `"${value.replace(/["\\]/g, (char) => `\\${char}`)}"`;
  const chars = Array.from(value);
  return chars
    .map((char, index) => {
      const special =
        '"+,;<>\\='.includes(char) ||
        char === '\u0000' ||
        (index === 0 && (char === '#' || char === ' ')) ||
        (index === chars.length - 1 && char === ' ');
      if (style === 'hex') return hexEscaped(char);
      if (!special) return char;
      return char === '\u0000' ? '\\00' : `\\${char}`;
    })
    .join('');
}

/**
 * `name` as an RFC 4514 string: its attributes in order, grouped into multi-valued RDNs where
 * `joined` says so, the last RDN written first (§2.1).
 */
function formatName(name: Name, joined: readonly boolean[], styles: readonly Style[]): string {
  const pairs = Object.entries(name).flatMap(([type, value]) =>
    (typeof value === 'string' ? [value] : value).map((one) => [type, one] as const),
  );
  const rdns: string[][] = [];
  pairs.forEach(([type, value], index) => {
    const written = `${type}=${formatValue(value, styles[index % styles.length] ?? 'backslash')}`;
    const last = rdns[rdns.length - 1];
    if (last !== undefined && joined[index % joined.length] === true) last.push(written);
    else rdns.push([written]);
  });
  return rdns
    .reverse()
    .map((rdn) => rdn.join('+'))
    .join(',');
}

const attributeType = fc.oneof(
  fc.constantFrom('CN', 'O', 'OU', 'C', 'L', 'ST', 'DC', 'UID', 'emailAddress', '2.5.4.97'),
  fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,7}$/),
);
const attributeValue = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.stringMatching(/^[ ,+\\"=#;<>a-z\u00e9\u4e2d]{0,8}$/),
);
const name = fc.dictionary(
  attributeType,
  fc.oneof(attributeValue, fc.array(attributeValue, { minLength: 2, maxLength: 3 })),
  { minKeys: 1, maxKeys: 6 },
);

describe('parseDistinguishedName', () => {
  it('reads any name written as RFC 4514 back as itself', () => {
    fc.assert(
      fc.property(
        name,
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        fc.array(fc.constantFrom<Style>('backslash', 'hex', 'quoted'), {
          minLength: 1,
          maxLength: 8,
        }),
        (given, joined, styles) => {
          expect(parseDistinguishedName(formatName(given, joined, styles))).toEqual(given);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives the shape Node gives: repeats as an array in certificate order, no prototype', () => {
    // Node 20, a certificate made with -subj "/CN=alice/OU=a/OU=b/O=Ex\, ample":
    // { CN: 'alice', OU: ['a', 'b'], O: 'Ex, ample' }; its RFC 4514 string lists the last first.
    const parsed = parseDistinguishedName('O=Ex\\, ample,OU=b,OU=a,CN=alice');
    expect(parsed).toEqual({ CN: 'alice', OU: ['a', 'b'], O: 'Ex, ample' });
    expect(Object.keys(parsed ?? {})).toEqual(['CN', 'OU', 'O']);
    expect(Object.getPrototypeOf(Object.getPrototypeOf(parsed))).toBeNull();
    expect(parseDistinguishedName('O=Example,CN=bob+UID=7')).toEqual({
      CN: 'bob',
      UID: '7',
      O: 'Example',
    });
    // Spaces after a separator, as older writers (RFC 1779) put them, and an empty value.
    expect(parseDistinguishedName('CN=carol, O=Example, OU=')).toEqual({
      OU: '',
      O: 'Example',
      CN: 'carol',
    });
    expect(parseDistinguishedName('CN=__proto__')).toEqual({ CN: '__proto__' });
  });

  it('reads nothing from a string that is no distinguished name', () => {
    for (const text of ['', 'www.example.com', 'CN=a,', '=a', 'C N=a', 'CN="open', 'CN=a\\']) {
      expect(parseDistinguishedName(text), text).toBeUndefined();
    }
  });
});

/** The subject `request.clientCert` reports for a request made with `client`, over real TLS. */
async function nodeSubject(client: { key: string; cert: string }): Promise<unknown> {
  const app = new RestApplication({ logger: silentLogger });
  app.get('/me', ({ request }) => ({ subject: request.clientCert?.subject }));
  const server = await serve(app, {
    port: 0,
    host: '127.0.0.1',
    handleSignals: false,
    tls: { ...client, requestCert: true, rejectUnauthorized: false },
  });
  try {
    const body = await new Promise<string>((resolve, reject) => {
      const outgoing = httpsRequest(
        {
          host: '127.0.0.1',
          port: server.port,
          path: '/me',
          ...client,
          agent: false,
          // The certificate is its own, self-signed, and names no host.
          rejectUnauthorized: false,
        },
        (incoming) => {
          let text = '';
          incoming.on('data', (chunk: Buffer) => {
            text += chunk.toString();
          });
          incoming.on('end', () => resolve(text));
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
    return JSON.parse(body).subject;
  } finally {
    await server.close();
  }
}

describe('a real certificate on Node and behind ALB', () => {
  it('has the same subject object, two OU and a multi-valued RDN included', async () => {
    // Made with openssl, as test/adapters/node/tls.test.ts makes its certificates.
    const directory = mkdtempSync(join(tmpdir(), 'restmachine-dn-'));
    try {
      const openssl = (...args: string[]) =>
        execFileSync('openssl', args, { cwd: directory, encoding: 'utf8' });
      openssl(
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        'c.key',
        '-out',
        'c.crt',
        '-days',
        '2',
        '-multivalue-rdn',
        '-subj',
        '/C=US/O=Example\\, Inc./OU=Team/OU=East/CN=alice+UID=7',
      );
      const client = {
        key: readFileSync(join(directory, 'c.key'), 'utf8'),
        cert: readFileSync(join(directory, 'c.crt'), 'utf8'),
      };
      // The RFC 4514 string ALB sends in X-Amzn-Mtls-Clientcert-Subject.
      const dn = openssl('x509', '-in', 'c.crt', '-noout', '-subject', '-nameopt', 'RFC2253')
        .trim()
        .replace(/^subject=\s*/, '');
      const fromNode = await nodeSubject(client);
      expect(fromNode).toEqual({
        C: 'US',
        O: 'Example, Inc.',
        OU: ['Team', 'East'],
        CN: 'alice',
        UID: '7',
      });
      const app = new RestApplication({ logger: silentLogger });
      app.get('/me', ({ request }) => ({ subject: request.clientCert?.subject }));
      const result = await new CloudGatewayAdapter(app, { metricsPublisher: null }).handleEvent(
        albEvent(
          { method: 'GET', path: '/me' },
          { extraHeaders: { 'x-amzn-mtls-clientcert-subject': dn } },
        ),
      );
      const body = new TextDecoder().decode(readAlbResult(result, false).body);
      expect(JSON.parse(body).subject).toEqual(fromNode);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
