/**
 * The encoders: loaded on the first response actually compressed and not before, Node's zlib
 * where there is one, and the `CompressionStream` encoders for runtimes without it.
 */

import * as zlib from 'node:zlib';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadedEncoders } from '../../../src/app/compression/encoders.js';
import { nodeEncoders } from '../../../src/app/compression/node-encoders.js';
import { webEncoders } from '../../../src/app/compression/web-encoders.js';
import { RestApplication, silentLogger } from '../../../src/index.js';

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

async function* textChunks(...chunks: string[]) {
  yield* chunks;
}

describe('loading the encoders', () => {
  // The first tests of this file run before any response of this module is compressed.
  it('routes without compress(), and clients that take none of its codings, never load them', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/plain', () => ({ text: 'x'.repeat(5000) }));
    app.get('/big', () => ({ text: 'x'.repeat(5000) })).compress();
    const gzip = { 'Accept-Encoding': 'gzip' };
    await app.request('/plain', { headers: gzip });
    await app.request('/big');
    await app.request('/big', { headers: { 'Accept-Encoding': 'deflate' } });
    expect(loadedEncoders()).toBeUndefined();
    const compressed = await app.request('/big', { headers: gzip });
    expect(compressed.headers.get('content-encoding')).toBe('gzip');
    expect(loadedEncoders()).toBeDefined();
  });
});

describe('node:zlib encoders', () => {
  it('have gzip and br, and zstd exactly when this Node has it', async () => {
    const encoders = await nodeEncoders();
    expect(encoders.codings.has('gzip')).toBe(true);
    expect(encoders.codings.has('br')).toBe(true);
    expect(encoders.codings.has('zstd')).toBe(
      typeof (zlib as { createZstdCompress?: unknown }).createZstdCompress === 'function',
    );
  });

  it('zstd round-trips where the runtime has it', async () => {
    const encoders = await nodeEncoders();
    if (!encoders.codings.has('zstd')) {
      expect(typeof (zlib as { zstdCompress?: unknown }).zstdCompress).toBe('undefined');
      return;
    }
    const decompress = (zlib as unknown as { zstdDecompressSync: (input: Uint8Array) => Buffer })
      .zstdDecompressSync;
    const whole = await encoders.bytes('zstd', Buffer.from('z'.repeat(3000)), {});
    expect(decompress(whole).toString()).toBe('z'.repeat(3000));
    const streamed = await collect(encoders.stream('zstd', textChunks('a', 'b'), {}));
    expect(decompress(streamed).toString()).toBe('ab');
  });

  it('honour levels: gzip level 1 is larger than level 9 on repetitive text', async () => {
    const encoders = await nodeEncoders();
    const text = Buffer.from(Array.from({ length: 2000 }, (_, i) => `line ${i % 37}\n`).join(''));
    const fast = await encoders.bytes('gzip', text, { gzip: 1 });
    const small = await encoders.bytes('gzip', text, { gzip: 9 });
    expect(fast.length).toBeGreaterThan(small.length);
    expect(gunzipSync(small).equals(text)).toBe(true);
  });
});

describe('CompressionStream encoders (runtimes without node:zlib)', () => {
  it('have gzip; Brotli only where the runtime takes it', () => {
    const encoders = webEncoders();
    expect(encoders.codings.has('gzip')).toBe(true);
    let brotli = true;
    try {
      new CompressionStream('br' as 'gzip');
    } catch {
      brotli = false;
    }
    expect(encoders.codings.has('br')).toBe(brotli);
    expect(encoders.file).toBeUndefined();
  });

  it('compress buffered bodies and streams with gzip', async () => {
    const encoders = webEncoders();
    const whole = await encoders.bytes('gzip', Buffer.from('w'.repeat(4000)), {});
    expect(gunzipSync(whole).toString()).toBe('w'.repeat(4000));
    const streamed = await collect(encoders.stream('gzip', textChunks('one ', 'two'), {}));
    expect(gunzipSync(streamed).toString()).toBe('one two');
  });

  it('fail a stream at a chunk that is neither text nor a Uint8Array, as uncompressed', async () => {
    for (const [kind, chunk] of [
      ['Int16Array', new Int16Array([1])],
      ['DataView', new DataView(new ArrayBuffer(2))],
      ['ArrayBuffer', new ArrayBuffer(2)],
      ['Number', 42],
    ] as const) {
      let released = false;
      const source = (async function* () {
        try {
          yield 'one ';
          yield chunk as unknown as string;
        } finally {
          released = true;
        }
      })();
      await expect(collect(webEncoders().stream('gzip', source, {})), kind).rejects.toThrow(
        `A response stream chunk must be a string or a Uint8Array, got ${kind}`,
      );
      // The source is let go, as the adapters let go of one sent uncompressed.
      expect(released, kind).toBe(true);
    }
  });
});
