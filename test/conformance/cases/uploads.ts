/**
 * Uploads (docs/uploads.md): `multipart/form-data` bodies as `formBody`, `files` and `parts`,
 * with their limits, through every driver (on Lambda the binary body arrives base64-encoded).
 */
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { z } from 'zod';
import { RestApplication, silentLogger } from '../../../src/index.js';
import { type FormPart, multipartBody } from '../../app/uploads/multipart-body.js';
import type { DriverRequest } from '../driver.js';
import type { CasesModule } from '../suite.js';
import { conformanceTest } from './helpers.js';

const KiB = 1024;
const BINARY = Uint8Array.from({ length: 10 * KiB }, (_, i) => (i * 13 + 5) % 256);

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function buildApp() {
  const app = new RestApplication({
    logger: silentLogger,
    multipart: { fileSize: 1536 * KiB, files: 2, spillThreshold: 4 * KiB },
  }).validates('signup', z.object({ email: z.email(), name: z.string().min(1) }), {
    source: 'formBody',
  });
  app.post('/upload', async ({ formBody, files }) => ({
    fields: formBody,
    prototypeIntact: Object.getPrototypeOf(formBody) !== Object.prototype,
    files: await Promise.all(
      files.map(async (file) => ({
        field: file.field,
        filename: file.filename,
        contentType: file.contentType,
        size: file.size,
        sha256: sha256(await file.bytes()),
      })),
    ),
  }));
  app.post('/stream', async ({ parts }) => {
    const seen: unknown[] = [];
    for await (const part of parts) {
      seen.push([part.field, part.filename ?? null, (await part.bytes()).length]);
    }
    return seen;
  });
  app.post('/signup', ({ signup }) => signup);
  app.post('/small', ({ files }) => files.length).multipart({ fileSize: 100 });
  return app;
}

function upload(path: string, parts: FormPart[]): DriverRequest {
  const { body, contentType } = multipartBody(parts);
  return { method: 'POST', path, headers: { 'content-type': contentType }, body };
}

export const uploadsCases: CasesModule = {
  title: 'uploads (multipart/form-data)',
  app: buildApp,
  cases(context) {
    const test = (title: string, body: Parameters<typeof conformanceTest>[2]) =>
      conformanceTest(context, title, body);

    test('multipart: text fields in formBody, files byte for byte, in arrival order', async (send) => {
      const response = await send(
        upload('/upload', [
          { name: 'title', value: 'Café ☕' },
          {
            name: 'blob',
            value: BINARY,
            filename: 'data.bin',
            contentType: 'application/octet-stream',
          },
          { name: 'note', value: 'hello', filename: 'note.txt', contentType: 'text/plain' },
        ]),
      );
      expect(response.status).toBe(200);
      expect(response.json()).toEqual({
        fields: { title: 'Café ☕' },
        prototypeIntact: true,
        files: [
          {
            field: 'blob',
            filename: 'data.bin',
            contentType: 'application/octet-stream',
            size: BINARY.length,
            sha256: sha256(BINARY),
          },
          {
            field: 'note',
            filename: 'note.txt',
            contentType: 'text/plain',
            size: 5,
            sha256: sha256(new TextEncoder().encode('hello')),
          },
        ],
      });
    });

    test('multipart: field names such as __proto__ and constructor are data', async (send) => {
      const response = await send(
        upload('/upload', [
          { name: '__proto__', value: 'p' },
          { name: 'constructor', value: 'c' },
        ]),
      );
      expect(response.json()).toEqual({
        // JSON.parse, not a literal: in a literal `__proto__` would set the prototype.
        fields: JSON.parse('{"__proto__":"p","constructor":"c"}'),
        prototypeIntact: true,
        files: [],
      });
    });

    test('multipart: the limits replace bodyLimit (a 1.5 MiB file with the default 1 MiB bodyLimit)', async (send) => {
      const big = new Uint8Array(1536 * KiB).fill(0x5a);
      const response = await send(
        upload('/upload', [{ name: 'big', value: big, filename: 'big.bin' }]),
      );
      expect(response.status).toBe(200);
      expect(
        (response.json() as { files: { size: number; sha256: string }[] }).files[0],
      ).toMatchObject({
        size: big.length,
        sha256: sha256(big),
      });
    });

    test('multipart: a file over fileSize is 413 naming the field and file', async (send) => {
      const response = await send(
        upload('/small', [{ name: 'doc', value: BINARY, filename: 'doc.pdf' }]),
      );
      expect(response.status).toBe(413);
      expect((response.json() as { details: unknown }).details).toEqual([
        { limit: 'fileSize', field: 'doc', filename: 'doc.pdf' },
      ]);
    });

    test('multipart: one file too many is 413', async (send) => {
      const response = await send(
        upload('/upload', [
          { name: 'a', value: 'x', filename: '1' },
          { name: 'b', value: 'y', filename: '2' },
          { name: 'c', value: 'z', filename: '3' },
        ]),
      );
      expect(response.status).toBe(413);
      expect((response.json() as { details: unknown }).details).toEqual([
        { limit: 'files', field: 'c', filename: '3' },
      ]);
    });

    test('multipart: parts stream in arrival order', async (send) => {
      const response = await send(
        upload('/stream', [
          { name: 'a', value: 'one' },
          { name: 'f', value: BINARY, filename: 'f.bin' },
        ]),
      );
      expect(response.json()).toEqual([
        ['a', null, 3],
        ['f', 'f.bin', BINARY.length],
      ]);
    });

    test('multipart: validates() on formBody answers 422 for bad text fields', async (send) => {
      const good = await send(
        upload('/signup', [
          { name: 'email', value: 'ada@example.com' },
          { name: 'name', value: 'Ada' },
        ]),
      );
      expect(good.json()).toEqual({ email: 'ada@example.com', name: 'Ada' });
      const bad = await send(upload('/signup', [{ name: 'email', value: 'nope' }]));
      expect(bad.status).toBe(422);
    });

    test('multipart: a malformed body is 400, another media type 415 with Accept', async (send) => {
      const malformed = await send({
        method: 'POST',
        path: '/upload',
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
        body: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\ncut short',
      });
      expect(malformed.status).toBe(400);
      const json = await send({
        method: 'POST',
        path: '/stream',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(json.status).toBe(415);
      expect(json.headers.get('accept')).toBe('multipart/form-data');
    });
  },
};
