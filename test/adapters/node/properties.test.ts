/**
 * Property-based tests of the security-sensitive parsing in the Node adapter: which client
 * address and protocol a proxy setting lets through, that request targets reach the
 * application byte for byte, and that content is never taken for a missing body.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { forwardedAddress, forwardedProtocol } from '../../../src/adapters/node/forwarded.js';
import type { ServeHandle } from '../../../src/adapters/node/index.js';
import { requestRefusal } from '../../../src/adapters/node/request.js';
import { MultiValueHeaders, RestApplication, silentLogger } from '../../../src/index.js';
import { rawExchange, send, start } from './helpers.js';

const address = fc.oneof(fc.ipV4(), fc.ipV6());

/** A list of addresses split over one or more header lines, with random spacing. */
const forwardedLines = fc
  .array(address, { minLength: 1, maxLength: 8 })
  .chain((entries) =>
    fc
      .array(fc.integer({ min: 0, max: entries.length }), { maxLength: 3 })
      .map((cuts) => ({ entries, cuts: [...new Set(cuts)].sort((a, b) => a - b) })),
  )
  .map(({ entries, cuts }) => {
    const lines: string[] = [];
    let from = 0;
    for (const cut of [...cuts, entries.length]) {
      if (cut > from) lines.push(entries.slice(from, cut).join(' ,  '));
      from = Math.max(from, cut);
    }
    return { entries, lines };
  });

function headersWith(name: string, lines: string[]): MultiValueHeaders {
  const headers = new MultiValueHeaders();
  for (const line of lines) headers.add(name, line);
  return headers;
}

describe('X-Forwarded-For', () => {
  it('is ignored entirely unless a proxy is trusted', () => {
    fc.assert(
      fc.property(forwardedLines, address, ({ lines }, socket) => {
        const headers = headersWith('X-Forwarded-For', lines);
        expect(forwardedAddress(headers, socket, false)).toBe(socket);
        expect(forwardedAddress(headers, socket, 0)).toBe(socket);
      }),
    );
  });

  it('with n trusted hops, gives the entry the outermost trusted hop wrote, never one left of it', () => {
    fc.assert(
      fc.property(
        forwardedLines,
        address,
        fc.integer({ min: 1, max: 10 }),
        ({ entries, lines }, socket, hops) => {
          const headers = headersWith('x-forwarded-for', lines);
          const chosen = forwardedAddress(headers, socket, hops);
          const expectedIndex = Math.max(entries.length - hops, 0);
          expect(chosen).toBe(entries[expectedIndex]);
        },
      ),
    );
  });

  it('with trust in every hop, gives the left-most entry', () => {
    fc.assert(
      fc.property(forwardedLines, address, ({ entries, lines }, socket) => {
        const headers = headersWith('X-Forwarded-For', lines);
        expect(forwardedAddress(headers, socket, true)).toBe(entries[0]);
      }),
    );
  });
});

describe('X-Forwarded-Proto', () => {
  it('only ever yields http or https, and the socket protocol when untrusted', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 12 }), { maxLength: 4 }),
        fc.constantFrom('http' as const, 'https' as const),
        fc.oneof(fc.boolean(), fc.integer({ min: 0, max: 4 })),
        (lines, socket, trust) => {
          const headers = headersWith('X-Forwarded-Proto', lines);
          const protocol = forwardedProtocol(headers, socket, trust);
          expect(['http', 'https']).toContain(protocol);
          if (trust === false || trust === 0) expect(protocol).toBe(socket);
        },
      ),
    );
  });
});

describe('request targets over HTTP', () => {
  let server: ServeHandle;
  beforeAll(async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/{rest*}', ({ request }) => ({ path: request.path, query: request.queryString }));
    // Paths the router refuses (400 for bad escapes, 404 for an encoded separator or NUL in a
    // catch-all segment) are echoed too, so every target can be checked.
    app.errorHandler(({ request }) => ({ path: request.path, query: request.queryString }));
    server = await start(app);
  });
  afterAll(async () => {
    await server.close();
  });

  // Characters a request target may carry (RFC 3986 pchar plus '/'), percent-escapes included.
  const pathCharacter = fc.oneof(
    fc.constantFrom(..."abcXYZ019-._~!$&'()*+,;=:@/".split('')),
    fc.integer({ min: 0, max: 255 }).map((byte) => `%${byte.toString(16).padStart(2, '0')}`),
  );
  const pathText = fc.array(pathCharacter, { maxLength: 30 }).map((parts) => `/${parts.join('')}`);
  const queryText = fc.option(
    fc.array(fc.oneof(pathCharacter, fc.constantFrom('?', '=', '&')), { maxLength: 20 }),
  );

  it('hands the application the path and query exactly as sent', async () => {
    await fc.assert(
      fc.asyncProperty(pathText, queryText, async (path, query) => {
        const target = query === null ? path : `${path}?${query.join('')}`;
        const response = await send(server.port, { path: target });
        expect([200, 400, 404]).toContain(response.status);
        expect(JSON.parse(response.body.toString())).toEqual({
          path,
          query: query === null ? '' : query.join(''),
        });
      }),
      { numRuns: 150 },
    );
  });
});

describe('request framing and a body that may be left out', () => {
  let server: ServeHandle;
  beforeAll(async () => {
    const app = new RestApplication({ logger: silentLogger }).validates(
      'filters',
      z.object({ tag: z.string() }).optional(),
    );
    app.post('/search', ({ filters }) => ({ tag: filters?.tag ?? null }));
    server = await start(app);
  });
  afterAll(async () => {
    await server.close();
  });

  interface Framing {
    content: string;
    chunked: boolean;
    cuts: number[];
    typed: boolean;
  }

  // Content sent with Content-Length or in chunks of any sizes (chunked framing of zero bytes
  // is no content, as a length of 0 is), with or without a JSON Content-Type.
  const framing: fc.Arbitrary<Framing> = fc.record({
    content: fc.constantFrom('', '{"tag":"a"}', '{"tag":"x"}  ', 'null'),
    chunked: fc.boolean(),
    cuts: fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 3 }),
    typed: fc.boolean(),
  });

  function message({ content, chunked, cuts, typed }: Framing) {
    const head = ['POST /search HTTP/1.1', 'Host: localhost', 'Connection: close'];
    if (typed) head.push('Content-Type: application/json');
    if (!chunked) {
      if (content !== '') head.push(`Content-Length: ${content.length}`);
      return `${head.join('\r\n')}\r\n\r\n${content}`;
    }
    head.push('Transfer-Encoding: chunked');
    let body = '';
    let from = 0;
    for (const cut of [...cuts.filter((at) => at < content.length), content.length]) {
      if (cut <= from) continue;
      const chunk = content.slice(from, cut);
      body += `${chunk.length.toString(16)}\r\n${chunk}\r\n`;
      from = cut;
    }
    return `${head.join('\r\n')}\r\n\r\n${body}0\r\n\r\n`;
  }

  it('gives the validator undefined only for a message without content and without a type', async () => {
    await fc.assert(
      fc.asyncProperty(framing, async (sent) => {
        const raw = await rawExchange(server.port, message(sent));
        const status = Number(raw.slice(9, 12));
        const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
        if (!sent.typed && sent.content !== '') {
          // Content the client framed but did not type is refused, never dropped.
          expect(status).toBe(415);
        } else if (!sent.typed) {
          expect(status).toBe(200);
          expect(JSON.parse(body)).toEqual({ tag: null });
        } else if (sent.content === '') {
          expect(status).toBe(400);
        } else {
          // Typed content is parsed as it came: null is the validator's undefined-like answer.
          const parsed = JSON.parse(sent.content) as { tag: string } | null;
          if (parsed === null) expect(status).toBe(422);
          else {
            expect(status).toBe(200);
            expect(JSON.parse(body)).toEqual({ tag: parsed.tag });
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('Host and Transfer-Encoding (RFC 9112 §3.2, §6.1)', () => {
  /** A name in any mix of cases. */
  const anyCase = (name: string) =>
    fc
      .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
      .map((upper) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));
  const validHost = fc
    .tuple(
      fc.oneof(
        fc.domain(),
        fc.ipV4(),
        fc.ipV6().map((ip) => `[${ip}]`),
      ),
      fc.option(fc.integer({ min: 0, max: 65_535 }), { nil: undefined }),
    )
    .map(([host, port]) => (port === undefined ? host : `${host}:${port}`));
  const otherLines = fc.array(
    fc.tuple(fc.constantFrom('Accept', 'User-Agent', 'X-Hosted', 'Hostname'), fc.string()),
    { maxLength: 4 },
  );

  it('lets one well-formed Host through, whatever the other lines', () => {
    fc.assert(
      fc.property(anyCase('host'), validHost, otherLines, (name, host, others) => {
        const raw = [...others.flat(), name, host];
        expect(requestRefusal(raw)).toBeUndefined();
      }),
    );
  });

  it('refuses a second Host line in any case, whatever the values', () => {
    fc.assert(
      fc.property(
        anyCase('host'),
        anyCase('host'),
        validHost,
        fc.string(),
        otherLines,
        (first, second, one, two, others) => {
          const refusal = requestRefusal([first, one, ...others.flat(), second, two]);
          expect(refusal?.statusCode).toBe(400);
        },
      ),
    );
  });

  it('refuses a Host with a character no host has', () => {
    fc.assert(
      fc.property(
        validHost,
        fc.constantFrom(' ', '/', '@', '?', '#', '\\', '"', '<', '{'),
        fc.nat(),
        (host, bad, at) => {
          const cut = at % (host.length + 1);
          const refusal = requestRefusal(['Host', host.slice(0, cut) + bad + host.slice(cut)]);
          expect(refusal?.statusCode).toBe(400);
        },
      ),
    );
  });

  it('refuses an empty host, with or without a port (RFC 9110 §4.2.1)', () => {
    for (const host of ['', ':8080', ':']) {
      expect(requestRefusal(['Host', host])?.statusCode, JSON.stringify(host)).toBe(400);
    }
  });

  it('answers 501 for any transfer coding besides chunked', () => {
    fc.assert(
      fc.property(
        anyCase('transfer-encoding'),
        fc.constantFrom('gzip', 'deflate', 'compress', 'br', 'x-custom'),
        (name, coding) => {
          expect(requestRefusal([name, `${coding}, chunked`])?.statusCode).toBe(501);
          expect(requestRefusal([name, ' Chunked '])).toBeUndefined();
        },
      ),
    );
  });

  it('answers 400 for any Transfer-Encoding in an HTTP/1.0 request, chunked included', () => {
    fc.assert(
      fc.property(
        anyCase('transfer-encoding'),
        fc.constantFrom('chunked', 'gzip, chunked'),
        (name, coding) => {
          expect(requestRefusal(['Host', 'x', name, coding], true)?.statusCode).toBe(400);
        },
      ),
    );
  });
});

describe('header values with obs-text (RFC 9110 §5.5)', () => {
  let server: ServeHandle;
  beforeAll(async () => {
    const app = new RestApplication({ logger: silentLogger });
    const bodies: Record<string, () => unknown> = {
      text: () => 'snow \u2603',
      json: () => ({ snow: '\u2603' }),
      bytes: () => new TextEncoder().encode('snow \u2603'),
      stream: async function* () {
        yield 'snow \u2603';
      },
      empty: () => null,
    };
    app.get('/{kind}', ({ kind, queryParams }) => [
      bodies[kind]?.(),
      200,
      { 'X-A': queryParams.v },
    ]);
    server = await start(app);
  });
  afterAll(async () => {
    await server.close();
  });

  // Field content: HTAB, SP, VCHAR and obs-text, between two letters so no whitespace is trimmed.
  const fieldCharacter = fc.oneof(
    fc.integer({ min: 0x20, max: 0x7e }),
    fc.integer({ min: 0x80, max: 0xff }),
    fc.constant(0x09),
  );
  const fieldValue = fc
    .array(fieldCharacter, { maxLength: 20 })
    .map((codes) => `a${String.fromCharCode(...codes)}z`);

  it('go out one octet per character, whatever the body, which stays UTF-8', async () => {
    await fc.assert(
      fc.asyncProperty(
        fieldValue,
        fc.constantFrom('text', 'json', 'bytes', 'stream', 'empty'),
        async (value, kind) => {
          const target = `/${kind}?v=${encodeURIComponent(value)}`;
          const exchange = await rawExchange(
            server.port,
            `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
          );
          const end = exchange.indexOf('\r\n\r\n');
          const head = exchange.slice(0, end);
          expect(head.split('\r\n')).toContain(`x-a: ${value}`);
          const body = Buffer.from(exchange.slice(end + 4), 'latin1').toString('utf8');
          if (kind !== 'empty') expect(body).toContain('\u2603');
        },
      ),
      { numRuns: 60 },
    );
  });
});
