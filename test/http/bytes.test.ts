/**
 * The byte helpers every layer shares: UTF-8 lengths, joining chunks, reading a stream whole and
 * releasing a body that will not be sent.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  collectBytes,
  concatBytes,
  discardBody,
  portableUtf8Length,
  utf8Length,
} from '../../src/http/bytes.js';

describe('utf8Length', () => {
  // The oracle is TextEncoder, which encodes a lone surrogate as U+FFFD (3 bytes) as Node does.
  const encoded = (text: string): number => new TextEncoder().encode(text).length;

  it('equals the encoded byte length for any string, native and portable (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          // Lone surrogates too: a string is UTF-16, not always well-formed.
          fc.string({
            unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
          }),
        ),
        (text) => {
          expect(portableUtf8Length(text)).toBe(encoded(text));
          expect(utf8Length(text)).toBe(encoded(text));
        },
      ),
      { numRuns: 500 },
    );
    for (const text of ['{"a":"é😀"}', '\uD800', '\uDC00a', 'plain ascii']) {
      expect(portableUtf8Length(text)).toBe(encoded(text));
    }
  });

  it('answers a text measured just before from memory, and only that text', () => {
    // Same length in UTF-16, different in UTF-8: the remembered answer is the text's own.
    const sequence = ['aé', 'ab', 'aé', 'aé', 'x'.repeat(70_000), 'ab', 'x'.repeat(70_000), 'é'];
    for (const text of sequence) expect(utf8Length(text)).toBe(encoded(text));
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('é', 'e', 'ée', 'ee', '😀', 'ab', ''), { maxLength: 20 }),
        (texts) => {
          for (const text of texts) expect(utf8Length(text)).toBe(encoded(text));
        },
      ),
    );
  });
});

describe('concatBytes and collectBytes', () => {
  it('join chunks in order; one chunk comes back as it is', () => {
    const one = new Uint8Array([1, 2]);
    expect(concatBytes([one])).toBe(one);
    expect([...concatBytes([one, new Uint8Array(0), new Uint8Array([3])])]).toEqual([1, 2, 3]);
    expect(concatBytes([]).length).toBe(0);
  });

  it('read text and bytes whole, text as UTF-8', async () => {
    async function* chunks(): AsyncGenerator<Uint8Array | string> {
      yield 'é';
      yield new Uint8Array([0x21]);
    }
    expect([...(await collectBytes(chunks()))]).toEqual([0xc3, 0xa9, 0x21]);
    expect((await collectBytes((async function* () {})())).length).toBe(0);
  });
});

describe('discardBody', () => {
  it('destroys a Node stream, cancels a WHATWG stream and ignores the rest', async () => {
    const destroy = vi.fn();
    discardBody({ destroy });
    expect(destroy).toHaveBeenCalledOnce();
    const cancel = vi.fn(() => Promise.reject(new Error('already closed')));
    discardBody({ cancel });
    expect(cancel).toHaveBeenCalledOnce();
    for (const body of [undefined, null, 'text', new Uint8Array(1), 42]) discardBody(body);
  });
});
