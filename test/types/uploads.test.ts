/**
 * Type tests for uploads: `files`, `parts` and `formBody` are typed in handlers, the limits are
 * checked, and hooks cannot name the upload names.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type MultipartOptions,
  type MultipartPart,
  RestApplication,
  silentLogger,
  type UploadedFile,
} from '../../src/index.js';

describe('upload types', () => {
  it('types files, parts and formBody in handlers', () => {
    const app = new RestApplication({ logger: silentLogger, multipart: { fileSize: 1024 } });
    app.post('/files', async ({ files, formBody }) => {
      expectTypeOf(files).toEqualTypeOf<UploadedFile[]>();
      expectTypeOf(formBody).toEqualTypeOf<Record<string, string>>();
      const [first] = files;
      if (first !== undefined) {
        expectTypeOf(first.size).toBeNumber();
        expectTypeOf(first.bytes()).toEqualTypeOf<Promise<Uint8Array>>();
        expectTypeOf(first.stream()).toEqualTypeOf<ReadableStream<Uint8Array>>();
      }
      return null;
    });
    app.post('/parts', async ({ parts }) => {
      expectTypeOf(parts).toEqualTypeOf<AsyncIterable<MultipartPart>>();
      for await (const part of parts) {
        expectTypeOf(part.filename).toEqualTypeOf<string | undefined>();
        for await (const chunk of part) expectTypeOf(chunk).toEqualTypeOf<Uint8Array>();
      }
      return null;
    });
  });

  it('checks the limits and keeps uploads out of hooks', () => {
    expectTypeOf<{ fileSize: number }>().toMatchTypeOf<MultipartOptions>();
    // Both are refused at run time too.
    // @ts-expect-error: a limit that does not exist.
    expect(() => new RestApplication({ multipart: { fileSise: 1 } })).toThrow(/fileSise/);
    const app = new RestApplication({ logger: silentLogger });
    app.post('/x', () => null).multipart({ files: 1 });
    // @ts-expect-error: hooks run before the body is read.
    expect(() => app.onRequest(({ files }) => files)).toThrow(/files/);
  });
});
