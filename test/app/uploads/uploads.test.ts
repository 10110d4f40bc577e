/**
 * Uploads in process (docs/uploads.md): `formBody` and `files` of a multipart body, `parts`
 * streamed, every limit a 413 naming the field and file, malformed bodies a 400, temporary files
 * above the spill threshold removed once the route answered, whichever way it answered.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  HttpError,
  type MultipartPart,
  Request,
  Response,
  RestApplication,
  SetupError,
  silentLogger,
  type UploadedFile,
} from '../../../src/index.js';
import { type FormPart, multipartBody } from './multipart-body.js';

let tmpDir: string;
beforeEach(() => {
  tmpDir = mkdtempSync(join(tmpdir(), 'uploads-test-'));
});
afterEach(() => {
  rmSync(tmpDir, { recursive: true, force: true });
});

/** Everything under the test's temporary directory, recursively. */
function leftOnDisk(): string[] {
  return readdirSync(tmpDir, { recursive: true }) as string[];
}

function post(app: RestApplication<object>, path: string, parts: FormPart[]) {
  const { body, contentType } = multipartBody(parts);
  return app.execute(
    new Request({ method: 'POST', path, headers: { 'content-type': contentType }, body }),
  );
}

/** POSTs a `boundary=x` multipart body in slices of `size`, reporting each slice as it is taken. */
function postInSlices(
  app: RestApplication<object>,
  path: string,
  body: string,
  size: number,
  onSlice: (size: number) => void = () => undefined,
) {
  const slices = async function* () {
    for (let at = 0; at < body.length; at += size) {
      onSlice(size);
      yield body.slice(at, at + size);
    }
  };
  return app.execute(
    new Request({
      method: 'POST',
      path,
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      body: slices(),
    }),
  );
}

function json(response: Response): unknown {
  const body = response.body;
  return JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body as Uint8Array));
}

async function describeFiles(files: UploadedFile[]) {
  return Promise.all(
    files.map(async (file) => ({
      field: file.field,
      filename: file.filename,
      contentType: file.contentType,
      size: file.size,
      text: await file.text(),
    })),
  );
}

const bytes = (length: number, fill = 0x61) => new Uint8Array(length).fill(fill);

describe('formBody and files', () => {
  it('gives the text fields in formBody and the files in arrival order', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.post('/up', async ({ formBody, files }) => ({
      formBody,
      files: await describeFiles(files),
    }));
    const response = await post(app, '/up', [
      { name: 'title', value: 'Holiday ☀' },
      { name: 'photo', value: 'first', filename: 'a.jpg', contentType: 'image/jpeg' },
      { name: 'title', value: 'ignored: the first value wins' },
      { name: 'photo', value: 'second', filename: 'dir/../b.txt' },
    ]);
    expect(response.statusCode).toBe(200);
    expect(json(response)).toEqual({
      formBody: { title: 'Holiday ☀' },
      files: [
        { field: 'photo', filename: 'a.jpg', contentType: 'image/jpeg', size: 5, text: 'first' },
        // RFC 7578 §4.2: only the last path component of a filename is kept.
        { field: 'photo', filename: 'b.txt', contentType: 'text/plain', size: 6, text: 'second' },
      ],
    });
  });

  it('reads field names and filenames in UTF-8, as a FormData client sends them', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.post('/up', ({ formBody, files }) => ({ formBody, names: files.map((f) => f.filename) }));
    const form = new FormData();
    form.append('prénom', 'Zoë');
    form.append('file', new Blob(['x']), 'Café ☕.txt');
    const wire = new globalThis.Response(form);
    const response = await app.execute(
      new Request({
        method: 'POST',
        path: '/up',
        headers: { 'content-type': wire.headers.get('content-type') as string },
        body: new Uint8Array(await wire.arrayBuffer()),
      }),
    );
    expect(json(response)).toEqual({ formBody: { prénom: 'Zoë' }, names: ['Café ☕.txt'] });
  });

  it('keeps binary content exact, through bytes() and stream()', async () => {
    const app = new RestApplication({ logger: silentLogger });
    const content = Uint8Array.from({ length: 3000 }, (_, i) => (i * 7) % 256);
    let seen: UploadedFile | undefined;
    app.post('/up', async ({ files }) => {
      seen = files[0];
      const streamed: number[] = [];
      for await (const chunk of (
        seen as UploadedFile
      ).stream() as unknown as AsyncIterable<Uint8Array>) {
        streamed.push(...chunk);
      }
      return { bytes: [...(await (seen as UploadedFile).bytes())], streamed };
    });
    const response = await post(app, '/up', [
      { name: 'blob', value: content, filename: 'b.bin', contentType: 'application/octet-stream' },
    ]);
    const result = json(response) as { bytes: number[]; streamed: number[] };
    expect(result.bytes).toEqual([...content]);
    expect(result.streamed).toEqual([...content]);
    // Released with the request: nothing of it stays in memory.
    await expect((seen as UploadedFile).bytes()).rejects.toThrow(/released/);
  });

  it('an urlencoded form has no files; another body is 415 listing both form types', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.post('/up', ({ files }) => ({ count: files.length }));
    const form = await app.request('/up', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    expect(json(form)).toEqual({ count: 0 });
    const other = await app.request('/up', { method: 'POST', json: { a: 1 } });
    expect(other.statusCode).toBe(415);
    // RFC 9110 §15.5.16: Accept lists what the route takes, the urlencoded form it answered.
    expect(other.headers.get('accept')).toBe(
      'application/x-www-form-urlencoded, multipart/form-data',
    );
    // The message says the same as the header.
    expect((json(other) as { error: string }).error).toBe(
      'Unsupported Content-Type "application/json"; expected application/x-www-form-urlencoded or multipart/form-data',
    );
  });

  it('validates() with source formBody covers multipart text fields', async () => {
    const app = new RestApplication({ logger: silentLogger }).validates(
      'profile',
      z.object({ name: z.string().min(2), age: z.coerce.number().int() }),
      { source: 'formBody' },
    );
    app.post('/profile', ({ profile, files }) => ({ profile, files: files.length }));
    const good = await post(app, '/profile', [
      { name: 'name', value: 'Ada' },
      { name: 'age', value: '36' },
      { name: 'avatar', value: 'x', filename: 'a.png' },
    ]);
    expect(json(good)).toEqual({ profile: { name: 'Ada', age: 36 }, files: 1 });
    const bad = await post(app, '/profile', [{ name: 'name', value: 'A' }]);
    expect(bad.statusCode).toBe(422);
    expect((json(bad) as { details: { path: string }[] }).details.map((d) => d.path)).toEqual([
      'name',
      'age',
    ]);
  });

  it('a field that is not UTF-8 is 400; a file may hold any bytes', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.post('/up', ({ formBody, files }) => ({ formBody, size: files[0]?.size }));
    const latin1 = new Uint8Array([0x43, 0x61, 0x66, 0xe9]);
    expect((await post(app, '/up', [{ name: 'name', value: latin1 }])).statusCode).toBe(400);
    const file = await post(app, '/up', [{ name: 'f', value: latin1, filename: 'x' }]);
    expect(json(file)).toEqual({ formBody: {}, size: 4 });
  });
});

describe('names that are not UTF-8', () => {
  const app = new RestApplication({ logger: silentLogger });
  app.post('/up', ({ formBody, files }) => ({
    formBody,
    files: files.map((file) => [file.field, file.filename]),
  }));
  // Each disposition given as its bytes: latin1 text keeps them as they are.
  const send = (...dispositions: string[]) =>
    app.execute(
      new Request({
        method: 'POST',
        path: '/up',
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
        body: Buffer.from(
          `${dispositions.map((each, i) => `--x\r\nContent-Disposition: form-data; ${each}\r\n\r\n${i}\r\n`).join('')}--x--\r\n`,
          'latin1',
        ),
      }),
    );

  it('a field name or filename that is not UTF-8 is 400, never two names read as one', async () => {
    // Latin-1 \xe9 and \xea both became "a\uFFFD": the second value was lost.
    for (const dispositions of [
      ['name="a\xe9"', 'name="a\xea"'],
      ['name="f"; filename="caf\xe9.txt"'],
      ["name*=utf-8''a%E9"],
      ['name="\xef\xbf\xbd"', 'name="a\xe9"'],
    ]) {
      const response = await send(...dispositions);
      expect(response.statusCode, dispositions.join(' ')).toBe(400);
      expect(json(response)).toMatchObject({
        error: 'A multipart part has a field name or filename that is not valid UTF-8',
      });
    }
  });

  it('a U+FFFD the client sent in UTF-8 is a name like any other', async () => {
    const response = await send(
      'name="a\xef\xbf\xbd"',
      "name*=utf-8''b%EF%BF%BD",
      'name="f"; filename="\xef\xbf\xbd.txt"',
    );
    expect(json(response)).toEqual({
      formBody: { 'a\uFFFD': '0', 'b\uFFFD': '1' },
      files: [['f', '\uFFFD.txt']],
    });
  });
});

describe('limits', () => {
  function limited(options: ConstructorParameters<typeof RestApplication>[0]) {
    const app = new RestApplication({ logger: silentLogger, ...options });
    app.post('/up', async ({ formBody, files }) => ({ fields: formBody, files: files.length }));
    return app;
  }

  it.each([
    [
      'fileSize',
      { fileSize: 10 },
      [{ name: 'doc', value: bytes(11), filename: 'big.pdf' }],
      { limit: 'fileSize', field: 'doc', filename: 'big.pdf' },
    ],
    [
      'files',
      { files: 1 },
      [
        { name: 'a', value: 'x', filename: 'one' },
        { name: 'b', value: 'y', filename: 'two' },
      ],
      { limit: 'files', field: 'b', filename: 'two' },
    ],
    [
      'fields',
      { fields: 1 },
      [
        { name: 'a', value: 'x' },
        { name: 'b', value: 'y' },
      ],
      { limit: 'fields', field: 'b' },
    ],
    [
      'parts',
      { parts: 2 },
      [
        { name: 'a', value: 'x' },
        { name: 'b', value: 'y', filename: 'f' },
        { name: 'c', value: 'z' },
      ],
      { limit: 'parts', field: 'c' },
    ],
    [
      'fieldSize',
      { fieldSize: 3 },
      [{ name: 'note', value: 'four' }],
      { limit: 'fieldSize', field: 'note' },
    ],
    [
      'fieldsSize',
      { fieldsSize: 5 },
      [
        { name: 'a', value: 'abc' },
        { name: 'b', value: 'def' },
      ],
      { limit: 'fieldsSize', field: 'b' },
    ],
  ])('%s over its limit is 413 naming the field', async (_name, limits, parts, detail) => {
    const response = await post(limited({ multipart: limits }), '/up', parts as FormPart[]);
    expect(response.statusCode).toBe(413);
    expect((json(response) as { details: unknown }).details).toEqual([detail]);
  });

  it('a parts loop meets a refused part only if it reads that far, however far the parser read ahead', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 1, max: 9 }),
        async (limit, over, reads) => {
          const count = limit + over;
          const app = new RestApplication({ logger: silentLogger, multipart: { parts: limit } });
          app.post('/up', async ({ parts }) => {
            const seen: string[] = [];
            for await (const part of parts) {
              seen.push(part.field);
              if (seen.length === reads) break;
            }
            return seen;
          });
          const fields = Array.from({ length: count }, (_, i) => ({ name: `a${i}`, value: 'v' }));
          // In memory, as on Lambda and in-process: the parser reads every part at once.
          const response = await post(app, '/up', fields);
          if (Math.min(reads, count) <= limit && (reads <= count || count <= limit)) {
            expect(response.statusCode).toBe(200);
            expect(json(response)).toEqual(fields.slice(0, reads).map((field) => field.name));
          } else {
            expect(response.statusCode).toBe(413);
          }
        },
      ),
      { numRuns: 120 },
    );
  });

  it('a large part without a form-data disposition is a 400 wherever it falls, never a wait', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.post('/files', ({ files }) => files.length);
    app.post('/parts', async ({ parts }) => {
      for await (const _part of parts) {
        // read none
      }
      return null;
    });
    // Dropped by the parser (no disposition, an attachment, a bare CR in its name); large enough
    // that the parser, having dropped it, took no more of the body. Sizes either side of where
    // the body's 64 KiB slices fall.
    const heads = [
      'Content-Type: text/plain',
      'Content-Disposition: attachment; filename="a.txt"',
      'Content-Disposition: form-data; name="a\rb"',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...heads),
        fc.integer({ min: 0, max: 600_000 }),
        fc.boolean(),
        fc.constantFrom('/files', '/parts'),
        async (head, size, fieldFirst, path) => {
          const dropped = `--x\r\n${head}\r\n\r\n${'v'.repeat(size)}\r\n`;
          const field = '--x\r\nContent-Disposition: form-data; name="f"\r\n\r\nok\r\n';
          const body = `${fieldFirst ? field : ''}${dropped}--x--\r\n`;
          const response = await postInSlices(app, path, body, 65_536);
          expect(response.statusCode).toBe(400);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a flood of parts without a form-data disposition stops at the first: 400, the rest unread', async () => {
    const app = new RestApplication({ logger: silentLogger, multipart: { parts: 8 } });
    let handled = false;
    app.post('/files', ({ files }) => {
      handled = true;
      return files.length;
    });
    app.post('/parts', async ({ parts }) => {
      for await (const _part of parts) handled = true;
      return null;
    });
    const count = 50_000;
    const body = `${'--x\r\nX: y\r\n\r\nv\r\n'.repeat(count)}--x\r\n${'Content-Disposition: form-data; name="a"\r\n\r\nv\r\n'}--x--\r\n`;
    let consumed = 0;
    for (const path of ['/files', '/parts']) {
      consumed = 0;
      // Counts what the parser was given: it stops at the first such part, not at the end.
      const response = await postInSlices(app, path, body, 1024, (size) => {
        consumed += size;
      });
      expect(response.statusCode).toBe(400);
      expect(consumed).toBeLessThan(64 * 1024);
    }
    expect(handled).toBe(false);
  });

  it('a body exactly at the limits passes', async () => {
    const app = limited({
      multipart: { fileSize: 10, files: 1, fields: 1, parts: 2, fieldSize: 3 },
    });
    const response = await post(app, '/up', [
      { name: 'a', value: 'abc' },
      { name: 'f', value: bytes(10), filename: 'ten' },
    ]);
    expect(json(response)).toEqual({ fields: { a: 'abc' }, files: 1 });
  });

  it('replace bodyLimit for multipart bodies, and a route sets its own over the application', async () => {
    const app = new RestApplication({ logger: silentLogger, bodyLimit: 100 });
    app.post('/up', ({ files }) => ({ size: files[0]?.size }));
    app.post('/small', ({ files }) => ({ size: files[0]?.size })).multipart({ fileSize: 1000 });
    app.post('/text', ({ body }) => body.length);
    const parts = [{ name: 'f', value: bytes(5000), filename: 'f' }];
    const { body, contentType } = multipartBody(parts);
    const declared = { 'content-type': contentType, 'content-length': String(body.length) };
    const big = await app.execute(
      new Request({ method: 'POST', path: '/up', headers: declared, body }),
    );
    expect(json(big)).toEqual({ size: 5000 });
    const small = await app.execute(
      new Request({ method: 'POST', path: '/small', headers: declared, body }),
    );
    expect(small.statusCode).toBe(413);
    // A route that does not take uploads keeps bodyLimit, multipart or not.
    const text = await app.execute(
      new Request({ method: 'POST', path: '/text', headers: declared, body }),
    );
    expect(text.statusCode).toBe(413);
  });

  it('a declared length over what the limits allow is 413 before anything is read', async () => {
    const app = limited({ multipart: { fileSize: 10, files: 1, fields: 0, parts: 1 } });
    let read = false;
    const body = (async function* () {
      read = true;
      yield new Uint8Array(1);
    })();
    const response = await app.execute(
      new Request({
        method: 'POST',
        path: '/up',
        headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-length': '1000000' },
        body,
      }),
    );
    expect(response.statusCode).toBe(413);
    // The same details as when the bound is crossed while reading (docs/uploads.md, "Limits").
    expect(JSON.parse(response.body as string)).toMatchObject({
      error: expect.stringMatching(/^Upload over the size limit of \d+ bytes$/),
      details: [{ limit: 'size' }],
    });
    expect(read).toBe(false);
  });

  it('options are checked at construction and at registration', () => {
    expect(() => new RestApplication({ multipart: { fileSize: -1 } })).toThrow(SetupError);
    expect(() => new RestApplication({ multipart: { fieldsSize: 0 } })).not.toThrow();
    expect(() => new RestApplication({ multipart: { fieldsSize: -1 } })).toThrow(/fieldsSize/);
    expect(() => new RestApplication({ multipart: { fileSise: 1 } as never })).toThrow(/fileSise/);
    const app = new RestApplication({ logger: silentLogger });
    expect(() => app.post('/x', () => null).multipart({ files: Number.NaN })).toThrow(/files/);
  });
});

describe('malformed bodies', () => {
  const app = new RestApplication({ logger: silentLogger });
  app.post('/up', ({ formBody }) => formBody);
  const send = (contentType: string, body: string) =>
    app.execute(
      new Request({ method: 'POST', path: '/up', headers: { 'content-type': contentType }, body }),
    );

  it.each([
    ['no boundary', 'multipart/form-data', '--x\r\n\r\n--x--'],
    [
      'a body cut short',
      'multipart/form-data; boundary=x',
      '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nval',
    ],
    [
      'a part without a name',
      'multipart/form-data; boundary=x',
      '--x\r\nContent-Disposition: form-data\r\n\r\nv\r\n--x--\r\n',
    ],
  ])('%s is 400', async (_what, contentType, body) => {
    const response = await send(contentType, body);
    expect(response.statusCode).toBe(400);
  });

  // RFC 7578 §4.2: each part has `Content-Disposition: form-data` and a name; the parser drops
  // the others without announcing them, and they must not pass unnoticed.
  const named = 'Content-Disposition: form-data; name="a"\r\n\r\nv';
  it.each([
    ['no Content-Disposition', 'X-Other: y\r\n\r\nv'],
    ['an attachment disposition', 'Content-Disposition: attachment; name="a"\r\n\r\nv'],
    [
      'a filename with a bare CR',
      'Content-Disposition: form-data; name="a"; filename="x\ry"\r\n\r\nv',
    ],
  ])(
    'a part with %s is 400, before or after a named part, to files and parts',
    async (_what, part) => {
      const streamed = new RestApplication({ logger: silentLogger });
      streamed.post('/up', async ({ parts }) => {
        for await (const each of parts) await each.bytes();
        return null;
      });
      for (const target of [app, streamed]) {
        for (const order of [
          [part, named],
          [named, part],
        ]) {
          const body = `${order.map((each) => `--x\r\n${each}\r\n`).join('')}--x--\r\n`;
          const response = await target.execute(
            new Request({
              method: 'POST',
              path: '/up',
              headers: { 'content-type': 'multipart/form-data; boundary=x' },
              body,
            }),
          );
          expect(response.statusCode).toBe(400);
        }
      }
    },
  );

  it('a part with more than 32 header lines, or over 8 KiB of them, is 413, however it is read', async () => {
    const streamed = new RestApplication({ logger: silentLogger });
    streamed.post('/up', async ({ parts }) => {
      for await (const each of parts) await each.bytes();
      return null;
    });
    const lines = (count: number) => Array.from({ length: count }, (_, i) => `X-${i}: y\r\n`);
    const within = `${lines(31).join('')}${named}`;
    const tooMany = `${lines(32).join('')}${named}`;
    const tooLong = `X-Pad: ${'p'.repeat(8200)}\r\n${named}`;
    for (const target of [app, streamed]) {
      const answer = (part: string) =>
        target.execute(
          new Request({
            method: 'POST',
            path: '/up',
            headers: { 'content-type': 'multipart/form-data; boundary=x' },
            body: `--x\r\n${named}\r\n--x\r\n${part}\r\n--x--\r\n`,
          }),
        );
      expect((await answer(within)).statusCode).toBe(target === app ? 200 : 204);
      for (const part of [tooMany, tooLong]) {
        const response = await answer(part);
        expect(response.statusCode).toBe(413);
        expect(json(response)).toMatchObject({ details: [{ limit: 'partHeaders' }] });
      }
    }
  });

  it('a delimiter line with text after the boundary is 400, never a header line read or lost', async () => {
    // The parser reads anything there, even the spaces and tabs RFC 2046 §5.1.1 allows, as the
    // part's first header line, past the 32 the part-header watch counted.
    const lines = Array.from({ length: 30 }, (_, i) => `X-${i}: y\r\n`).join('');
    const file = `${lines}Content-Disposition: form-data; name="f"; filename="a.png"\r\nContent-Type: image/png\r\n\r\nPNG`;
    const files = new RestApplication({ logger: silentLogger });
    files.post('/up', ({ files }) => files.map((each) => each.contentType));
    const answer = (body: string) =>
      files.execute(
        new Request({
          method: 'POST',
          path: '/up',
          headers: { 'content-type': 'multipart/form-data; boundary=x' },
          body,
        }),
      );
    expect(json(await answer(`--x\r\n${file}\r\n--x--\r\n`))).toEqual(['image/png']);
    for (const body of [
      `--xX-Pad: 1\r\n${file}\r\n--x--\r\n`,
      `--x\r\n${named}\r\n--x-\r\n${file}\r\n--x--\r\n`,
      `--x\r\n${named}\r\n--x \tz\r\n${file}\r\n--x--\r\n`,
      `--x \t\r\n${named}\r\n--x--\r\n`,
      `--x\r\n${named}\r\n--x \r\n${file}\r\n--x--\r\n`,
    ]) {
      const response = await answer(body);
      expect(response.statusCode).toBe(400);
      expect(json(response)).toMatchObject({
        error:
          'Malformed multipart/form-data body: a delimiter line has text after the boundary (spaces and tabs included)',
      });
    }
  });

  it('a boundary RFC 2046 does not allow is 400', async () => {
    for (const boundary of ['', 'ends-in-space ', 'a'.repeat(71), 'semi;colon"', 'tab\there']) {
      const response = await send(
        `multipart/form-data; boundary="${boundary}"`,
        `--${boundary}\r\n${named}\r\n--${boundary}--\r\n`,
      );
      expect(response.statusCode, JSON.stringify(boundary)).toBe(400);
    }
  });

  it('a Content-Type naming its boundary twice, in any spelling, is 400', async () => {
    // The parser took the first boundary and the part-header watch the last: a header block
    // over its bound passed, and a boundary RFC 2046 refuses was read (docs/uploads.md).
    const padded = `Content-Disposition: form-data; x="${'p'.repeat(9000)}"; name="role"\r\n\r\nv`;
    for (const parameters of [
      'boundary=x; boundary=y',
      "boundary*=UTF-8''x; boundary=y",
      'boundary =x; boundary=y',
      'Boundary=x; BOUNDARY=x',
      'boundary=a@b{}; boundary=x',
    ]) {
      for (const body of [
        `--x\r\n${padded}\r\n--x--\r\n`,
        `--x\r\n${named}\r\n--x--\r\n`,
        `--a@b{}\r\n${named}\r\n--a@b{}--\r\n`,
      ]) {
        const response = await send(`multipart/form-data; ${parameters}`, body);
        expect(response.statusCode, parameters).toBe(400);
        expect(json(response)).toMatchObject({
          error: 'The multipart/form-data Content-Type names its boundary parameter more than once',
        });
      }
    }
    const once = await send('multipart/form-data; boundary=x', `--x\r\n${padded}\r\n--x--\r\n`);
    expect(once.statusCode).toBe(413);
  });

  it('an empty form and a preamble or epilogue are fine', async () => {
    expect(json(await send('multipart/form-data; boundary=x', '--x--\r\n'))).toEqual({});
    const framed =
      'preamble\r\n--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\nepilogue';
    expect(json(await send('multipart/form-data; boundary=x', framed))).toEqual({ a: '1' });
  });
});

describe('parts', () => {
  it('streams the parts in order; moving on skips what was not read', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.post('/stream', async ({ parts }) => {
      const seen: unknown[] = [];
      for await (const part of parts) {
        if (part.field === 'skip') {
          seen.push({ skipped: part.filename });
          continue;
        }
        seen.push({ field: part.field, filename: part.filename, text: await part.text() });
      }
      return seen;
    });
    const response = await post(app, '/stream', [
      { name: 'a', value: 'one' },
      { name: 'skip', value: bytes(50_000), filename: 'big' },
      { name: 'f', value: 'two', filename: 'f.txt' },
    ]);
    expect(json(response)).toEqual([
      { field: 'a', text: 'one' },
      { skipped: 'big' },
      { field: 'f', filename: 'f.txt', text: 'two' },
    ]);
  });

  it('applies the limits while the handler reads, and to parts it skips', async () => {
    const app = new RestApplication({ logger: silentLogger, multipart: { fileSize: 100 } });
    app.post('/read', async ({ parts }) => {
      for await (const part of parts) await part.bytes();
      return null;
    });
    app.post('/skip', async ({ parts }) => {
      for await (const _part of parts) {
        // skipped
      }
      return null;
    });
    const parts = [{ name: 'f', value: bytes(1000), filename: 'big' }];
    for (const path of ['/read', '/skip']) {
      const response = await post(app, path, parts);
      expect(response.statusCode).toBe(413);
      expect((json(response) as { details: unknown }).details).toEqual([
        { limit: 'fileSize', field: 'f', filename: 'big' },
      ]);
    }
  });

  it('leaves the rest of the body unread when the handler stops early', async () => {
    const app = new RestApplication({ logger: silentLogger });
    let first: string | undefined;
    app.post('/first', async ({ parts }) => {
      for await (const part of parts) {
        first = await part.text();
        break;
      }
      return null;
    });
    const { body, contentType } = multipartBody([
      { name: 'a', value: 'one' },
      { name: 'b', value: bytes(200_000), filename: 'rest' },
    ]);
    let delivered = 0;
    const chunks = (async function* () {
      for (let offset = 0; offset < body.length; offset += 1024) {
        delivered += 1;
        yield body.slice(offset, offset + 1024);
      }
    })();
    const response = await app.execute(
      new Request({
        method: 'POST',
        path: '/first',
        headers: { 'content-type': contentType },
        body: chunks,
      }),
    );
    expect(response.statusCode).toBe(204);
    expect(first).toBe('one');
    expect(delivered).toBeLessThan(body.length / 1024 / 2);
  });

  it('a route cannot read parts together with files or formBody; hooks read no uploads', () => {
    const app = new RestApplication({ logger: silentLogger });
    app.post('/both', ({ parts, files }) => [parts, files]);
    expect(() => app.startupSync()).toThrow(/"parts" streams the body/);
    const other = new RestApplication({ logger: silentLogger });
    expect(() => other.onRequest((({ files }: { files: unknown }) => files) as never)).toThrow(
      /injects "files"/,
    );
  });

  it('a part is read once', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.post('/twice', async ({ parts }) => {
      for await (const part of parts as AsyncIterable<MultipartPart>) {
        await part.text();
        await part.text();
      }
      return null;
    });
    const response = await post(app, '/twice', [{ name: 'a', value: 'x' }]);
    expect(response.statusCode).toBe(500);
  });
});

describe('temporary files', () => {
  const parts = (size: number): FormPart[] => [
    { name: 'note', value: 'hello' },
    { name: 'doc', value: bytes(size, 0x62), filename: 'doc.bin' },
  ];

  it('a file over the spill threshold is on disk while the handler runs, and gone after', async () => {
    const app = new RestApplication({
      logger: silentLogger,
      multipart: { spillThreshold: 1024, tmpDir },
    });
    let during: string[] = [];
    app.post('/up', async ({ files }) => {
      during = leftOnDisk();
      const text = await (files[0] as UploadedFile).text();
      return { size: files[0]?.size, same: text === 'b'.repeat(5000) };
    });
    const response = await post(app, '/up', parts(5000));
    expect(json(response)).toEqual({ size: 5000, same: true });
    expect(during.length).toBe(2); // restmachine-upload-XXXXXX/ and its one file
    expect(during.some((entry) => entry.startsWith('restmachine-upload-'))).toBe(true);
    expect(leftOnDisk()).toEqual([]);
  });

  it('a file under the threshold never touches the disk', async () => {
    const app = new RestApplication({
      logger: silentLogger,
      multipart: { spillThreshold: 1024, tmpDir },
    });
    let during: string[] = ['?'];
    app.post('/up', ({ files }) => {
      during = leftOnDisk();
      return files.length;
    });
    await post(app, '/up', parts(1024));
    expect(during).toEqual([]);
  });

  it('is removed when the handler throws, never reads the files, or the upload is refused', async () => {
    const app = new RestApplication({
      logger: silentLogger,
      multipart: { spillThreshold: 1024, tmpDir, files: 1 },
    });
    app.post('/throws', ({ files }) => {
      throw new HttpError(409, `conflict with ${files.length}`);
    });
    app.post('/ignores', ({ formBody }) => formBody);
    app.post('/refused', ({ files }) => files.length);
    expect((await post(app, '/throws', parts(5000))).statusCode).toBe(409);
    expect(leftOnDisk()).toEqual([]);
    expect(json(await post(app, '/ignores', parts(5000)))).toEqual({ note: 'hello' });
    expect(leftOnDisk()).toEqual([]);
    const refused = await post(app, '/refused', [
      ...parts(5000),
      { name: 'second', value: 'x', filename: 'two' },
    ]);
    expect(refused.statusCode).toBe(413);
    expect(leftOnDisk()).toEqual([]);
  });

  it('a response streaming a spilled file outlives the request that removed it', async () => {
    const app = new RestApplication({
      logger: silentLogger,
      multipart: { spillThreshold: 1024, tmpDir },
    });
    app.post('/echo', ({ files }) => new Response(200, (files[0] as UploadedFile).stream()));
    const response = await post(app, '/echo', parts(200_000));
    expect(leftOnDisk()).toEqual([]);
    const chunks: Uint8Array[] = [];
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) chunks.push(chunk);
    expect(Buffer.concat(chunks).equals(Buffer.alloc(200_000, 0x62))).toBe(true);
  });

  it('an aborted request (requestTimeout) stops parsing and removes what was spilled', async () => {
    const app = new RestApplication({
      logger: silentLogger,
      requestTimeout: 300,
      multipart: { spillThreshold: 1024, tmpDir },
    });
    let handled = false;
    app.post('/up', ({ files }) => {
      handled = true;
      return files.length;
    });
    const { body, contentType } = multipartBody(parts(50_000));
    // The client sends most of the file, then nothing more: the body never ends.
    const stalled = (async function* () {
      yield body.slice(0, 40_000);
      await new Promise(() => undefined);
    })();
    const answer = app.execute(
      new Request({
        method: 'POST',
        path: '/up',
        headers: { 'content-type': contentType },
        body: stalled,
      }),
    );
    let spilled = false;
    for (let i = 0; i < 25 && !spilled; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      spilled = leftOnDisk().length > 0;
    }
    expect(spilled).toBe(true);
    const response = await answer;
    expect(response.statusCode).toBe(503);
    expect(handled).toBe(false);
    for (let i = 0; i < 100 && leftOnDisk().length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(leftOnDisk()).toEqual([]);
  });
});
