/**
 * `compress({ levels })` is range-checked at registration (docs/streams.md, "Compression"): a
 * level the encoder would refuse (zlib throws on every compressed response) or quietly clamp
 * (Brotli, zstd) is a SetupError naming the coding, the value and the range, and every level in
 * range compresses over real HTTP (the Node adapter on 127.0.0.1, a `node:http` client).
 */
import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeHandle, serve } from '../../../src/adapters/node/index.js';
import {
  type CompressOptions,
  Response,
  RestApplication,
  Router,
  SetupError,
  silentLogger,
} from '../../../src/index.js';

type Levels = NonNullable<CompressOptions['levels']>;

const TEXT = 'hello world '.repeat(500);
const RANGES = { gzip: [-1, 9], br: [0, 11], zstd: [1, 19] } as const;

function registrationError(levels: Levels): unknown {
  try {
    new RestApplication({ logger: silentLogger }).compress({ levels });
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('compress() levels out of range', () => {
  const cases: Array<[keyof typeof RANGES, number]> = [
    ['gzip', 10],
    ['gzip', 99],
    ['gzip', -2],
    ['gzip', -5],
    ['br', 12],
    ['br', 99],
    ['br', -1],
    ['zstd', 0],
    ['zstd', 20],
    ['zstd', 23],
  ];
  for (const [coding, level] of cases) {
    it(`refuses ${coding}: ${level} at registration, naming the coding, value and range`, () => {
      const error = registrationError({ [coding]: level });
      expect(error).toBeInstanceOf(SetupError);
      const [lowest, highest] = RANGES[coding];
      expect((error as SetupError).message).toBe(
        `compress(): levels.${coding} must be from ${lowest} to ${highest}, got ${level}`,
      );
    });
  }

  it('refuses them on a router and a route as on the application', () => {
    expect(() => new Router().compress({ levels: { gzip: 10 } })).toThrow(SetupError);
    const app = new RestApplication({ logger: silentLogger });
    expect(() => app.get('/x', () => TEXT).compress({ levels: { br: 12 } })).toThrow(
      /levels\.br must be from 0 to 11, got 12/,
    );
  });

  it('accepts exactly the levels in range (property)', () => {
    const coding = fc.constantFrom(...(Object.keys(RANGES) as Array<keyof typeof RANGES>));
    fc.assert(
      fc.property(coding, fc.integer({ min: -50, max: 50 }), (name, level) => {
        const [lowest, highest] = RANGES[name];
        const error = registrationError({ [name]: level });
        if (level >= lowest && level <= highest) expect(error).toBeUndefined();
        else expect(error).toBeInstanceOf(SetupError);
      }),
    );
  });
});

describe('compress() levels that registration accepts, over real HTTP', () => {
  // Every level from a little below each range to a little above it: those registration lets
  // through must all compress, buffered and streamed, where zlib used to fail each response.
  const accepted: Array<[coding: 'gzip' | 'br', level: number]> = [];
  for (const coding of ['gzip', 'br'] as const) {
    for (let level = -3; level <= 13; level++) {
      if (registrationError({ [coding]: level }) === undefined) accepted.push([coding, level]);
    }
  }
  let server: ServeHandle;

  beforeAll(async () => {
    const app = new RestApplication({ logger: silentLogger });
    for (const [coding, level] of accepted) {
      const levels = { [coding]: level };
      app
        .get(
          `/${coding}/${level}/text`,
          () => new Response(200, TEXT, { contentType: 'text/plain' }),
        )
        .compress({ levels });
      app
        .get(
          `/${coding}/${level}/stream`,
          () =>
            new Response(
              200,
              (async function* () {
                yield TEXT;
              })(),
              { contentType: 'text/plain' },
            ),
        )
        .compress({ levels });
    }
    server = await serve(app, { port: 0, host: '127.0.0.1', handleSignals: false });
  });

  afterAll(async () => {
    await server.close();
  });

  function get(path: string, encoding: string) {
    return new Promise<{ status: number; encoding: string | undefined; body: Buffer }>(
      (resolve, reject) => {
        const outgoing = httpRequest(
          { host: '127.0.0.1', port: server.port, path, headers: { 'Accept-Encoding': encoding } },
          (incoming) => {
            const parts: Buffer[] = [];
            incoming.on('data', (chunk: Buffer) => parts.push(chunk));
            incoming.on('end', () =>
              resolve({
                status: incoming.statusCode ?? 0,
                encoding: incoming.headers['content-encoding'],
                body: Buffer.concat(parts),
              }),
            );
            incoming.on('error', reject);
          },
        );
        outgoing.on('error', reject);
        outgoing.end();
      },
    );
  }

  it('lets through the whole range of each coding', () => {
    expect(accepted.filter(([coding]) => coding === 'gzip').map(([, level]) => level)).toEqual([
      -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    expect(accepted.filter(([coding]) => coding === 'br')).toHaveLength(12);
  });

  for (const [coding, level] of accepted) {
    for (const kind of ['text', 'stream']) {
      it(`compresses a ${kind} body with ${coding} level ${level}`, async () => {
        const answer = await get(`/${coding}/${level}/${kind}`, coding);
        expect(answer.status).toBe(200);
        expect(answer.encoding).toBe(coding);
        const decoded =
          coding === 'gzip' ? gunzipSync(answer.body) : brotliDecompressSync(answer.body);
        expect(decoded.toString()).toBe(TEXT);
      });
    }
  }
});
