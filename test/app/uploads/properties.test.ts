/**
 * Property tests of multipart parsing (RFC 7578, RFC 2046 §5.1.1): whatever the boundary, the
 * field names (prototype names included) and the way the body is cut into chunks on the wire,
 * the fields and files come out the same, and client-chosen names are data in a record that
 * inherits nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Request, RestApplication, silentLogger } from '../../../src/index.js';
import { expectDataOnly, untrustedName } from '../../http/untrusted.js';
import { multipartBody, splitAt } from './multipart-body.js';

// RFC 2046 §5.1.1: 1 to 70 characters from bchars, not ending in a space.
const BCHARS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ";
const boundary = fc
  .array(fc.constantFrom(...BCHARS), { minLength: 1, maxLength: 70 })
  .map((chars) => chars.join(''))
  .filter((text) => !text.endsWith(' '));

// Field names without the characters the builder would have to escape.
const fieldName = untrustedName.filter((name) => !/["\\\r\n]/.test(name) && name.length > 0);
const fieldValue = fc.string({ maxLength: 40 }).filter((value) => !value.includes('\r'));
const fileContent = fc.uint8Array({ maxLength: 3000 });

const form = fc.record({
  fields: fc.uniqueArray(fc.tuple(fieldName, fieldValue), {
    selector: ([name]) => name,
    maxLength: 6,
  }),
  files: fc.array(fc.tuple(fieldName, fc.stringMatching(/^\w[\w.-]{0,11}$/), fileContent), {
    maxLength: 3,
  }),
  boundary,
});

interface Seen {
  fields: Record<string, string>;
  files: { field: string; filename: string; bytes: number[] }[];
}

function buildApp() {
  const app = new RestApplication({ logger: silentLogger, multipart: { spillThreshold: 1000 } });
  let seen: Seen | undefined;
  app.post('/form', async ({ formBody, files }) => {
    seen = {
      fields: formBody,
      files: await Promise.all(
        files.map(async (file) => ({
          field: file.field,
          filename: file.filename,
          bytes: [...(await file.bytes())],
        })),
      ),
    };
    return null;
  });
  return { app, seen: () => seen };
}

describe('multipart parsing (properties)', () => {
  it('gives the same fields and files however the body is split on the wire', async () => {
    const { app, seen } = buildApp();
    await fc.assert(
      fc.asyncProperty(
        form,
        fc.array(fc.nat(), { maxLength: 12 }),
        async ({ fields, files, boundary }, rawCuts) => {
          // Binary content must not hold the delimiter: RFC 2046 §5.1.1 leaves that to the sender.
          const parts = [
            ...fields.map(([name, value]) => ({ name, value })),
            ...files.map(([name, filename, value]) => ({ name, filename, value })),
          ];
          const { body, contentType } = multipartBody(parts, boundary);
          fc.pre(
            !Buffer.from(body)
              .subarray(0, body.length - boundary.length - 6)
              .includes(`\r\n--${boundary}--`),
          );
          const response = await app.execute(
            new Request({
              method: 'POST',
              path: '/form',
              headers: { 'content-type': contentType },
              body: splitAt(body, rawCuts),
            }),
          );
          expect(response.statusCode).toBe(204);
          const result = seen() as Seen;
          expectDataOnly(result.fields, new Map(fields));
          expect(result.files).toEqual(
            files.map(([field, filename, content]) => ({ field, filename, bytes: [...content] })),
          );
        },
      ),
      { numRuns: 150 },
    );
  });

  it('never lets a field name reach a prototype, sent once or many times', async () => {
    const { app, seen } = buildApp();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fieldName, fieldValue), { maxLength: 8 }),
        async (pairs) => {
          const { body, contentType } = multipartBody(
            pairs.map(([name, value]) => ({ name, value })),
          );
          const response = await app.execute(
            new Request({
              method: 'POST',
              path: '/form',
              headers: { 'content-type': contentType },
              body,
            }),
          );
          expect(response.statusCode).toBe(204);
          const first = new Map<string, string>();
          for (const [name, value] of pairs) if (!first.has(name)) first.set(name, value);
          expectDataOnly((seen() as Seen).fields, first);
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        },
      ),
      { numRuns: 150 },
    );
  });

  it('counts every part toward parts and refuses any part that is not form-data', async () => {
    // RFC 7578 §4.2: a part without `Content-Disposition: form-data` and a name is a 400, and
    // it counts toward `parts` like any other (docs/uploads.md).
    const otherHeaders = Array.from({ length: 31 }, (_, i) => `X-${i}: y\r\n`).join('');
    const refused = fc.constantFrom(
      'X-Other: y\r\n',
      'Content-Disposition: attachment; name="a"\r\n',
      'Content-Disposition: inline\r\n',
      'Content-Disposition: form-data\r\n',
      'Content-Disposition: form-data; name="a"; filename="x\ry"\r\n',
      'Content-Disposition: form-data; name="a\nb"\r\n',
    );
    const accepted = fc.constantFrom(
      'Content-Disposition: form-data; name="a"\r\n',
      'Content-Disposition: form-data; name="f"; filename="f.txt"\r\n',
      // 32 header lines, the most a part may have.
      `${otherHeaders}Content-Disposition: form-data; name="a"\r\n`,
    );
    const part = fc.oneof(
      accepted.map((head) => ({ head, ok: true })),
      refused.map((head) => ({ head, ok: false })),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(part, { maxLength: 12 }), fc.nat(8), async (parts, limit) => {
        const app = new RestApplication({
          logger: silentLogger,
          multipart: { parts: limit, files: 100, fields: 100 },
        });
        app.post('/form', ({ files }) => files.length);
        const body = `${parts.map(({ head }) => `--x\r\n${head}\r\nv\r\n`).join('')}--x--\r\n`;
        const response = await app.execute(
          new Request({
            method: 'POST',
            path: '/form',
            headers: { 'content-type': 'multipart/form-data; boundary=x' },
            body,
          }),
        );
        const allAccepted = parts.every(({ ok }) => ok);
        if (parts.length <= limit) expect(response.statusCode).toBe(allAccepted ? 200 : 400);
        else if (allAccepted) expect(response.statusCode).toBe(413);
        else expect([400, 413]).toContain(response.statusCode);
        if (response.statusCode === 413) {
          const body = response.body;
          const text =
            typeof body === 'string' ? body : new TextDecoder().decode(body as Uint8Array);
          expect(JSON.parse(text).details[0].limit).toBe('parts');
        }
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a header block over its bound, wherever the body is split, and never cuts a name', async () => {
    // The parser would keep the first bytes of a longer block and read them as whole: a name
    // padded past the bound must be 413, never the name's first letters (docs/uploads.md).
    const app = new RestApplication({ logger: silentLogger });
    app.post('/form', ({ formBody, files }) => ({
      fields: Object.keys(formBody),
      files: files.map((file) => file.filename),
    }));
    await fc.assert(
      fc.asyncProperty(
        boundary,
        // Around the bound, so both sides of it come up.
        fc.integer({ min: 8080, max: 8160 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 8 }),
        async (boundary, padding, asFile, rawCuts) => {
          const name = 'role_requested_by_user';
          const filler = `x="${'p'.repeat(padding)}"; `;
          const head = asFile
            ? `Content-Disposition: form-data; ${filler}name="f"; filename="${name}.jpg"`
            : `Content-Disposition: form-data; ${filler}name="${name}"`;
          const text = `--${boundary}\r\n${head}\r\n\r\nv\r\n--${boundary}--\r\n`;
          const body = Buffer.from(text, 'latin1');
          const response = await app.execute(
            new Request({
              method: 'POST',
              path: '/form',
              headers: { 'content-type': `multipart/form-data; boundary="${boundary}"` },
              body: splitAt(body, rawCuts),
            }),
          );
          // The block: the rest of the delimiter line, the header line and the blank line.
          const block = 2 + head.length + 2 + 2;
          if (block > 8192) {
            expect(response.statusCode).toBe(413);
            expect(JSON.parse(String(response.body)).details[0].limit).toBe('partHeaders');
          } else {
            expect(response.statusCode).toBe(200);
            expect(JSON.parse(String(response.body))).toEqual(
              asFile ? { fields: [], files: [`${name}.jpg`] } : { fields: [name], files: [] },
            );
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('frames the body with the one boundary it checked, or refuses the Content-Type', async () => {
    // Readers disagree on which of two boundary parameters counts (the first, the last, the
    // `boundary*` spelling): the parser and the part-header watch must frame the body with the
    // same one, or a header block over its bound is read (docs/uploads.md).
    const app = new RestApplication({ logger: silentLogger });
    app.post('/form', ({ formBody }) => formBody);
    const spelling = fc.constantFrom(
      'boundary',
      'BOUNDARY',
      'Boundary',
      'boundary ',
      ' boundary',
      'bound ary',
      'boundary*',
      'boundary*0',
    );
    const boundaryParameter = fc
      .record({ name: spelling, value: boundary, quoted: fc.boolean() })
      .map(({ name, value, quoted }) => ({
        value,
        plain: quoted && /^ ?boundary ?$/i.test(name),
        text: name.endsWith('*')
          ? `${name}=UTF-8''${encodeURIComponent(value)}`
          : `${name}=${quoted ? `"${value}"` : value}`,
      }));
    const otherParameter = fc
      .constantFrom('charset=utf-8', 'x="y"', 'name=boundary')
      .map((text) => ({ value: undefined, plain: false, text }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(boundaryParameter, otherParameter), { minLength: 1, maxLength: 4 }),
        fc.nat(),
        async (parameters, pick) => {
          const boundaries = parameters.flatMap(({ value }) =>
            value === undefined ? [] : [value],
          );
          fc.pre(boundaries.length > 0);
          const framing = boundaries[pick % boundaries.length] as string;
          const contentType = `multipart/form-data; ${parameters.map(({ text }) => text).join('; ')}`;
          const send = (head: string) =>
            app.execute(
              new Request({
                method: 'POST',
                path: '/form',
                headers: { 'content-type': contentType },
                body: `--${framing}\r\n${head}\r\n\r\nv\r\n--${framing}--\r\n`,
              }),
            );
          const padded = await send(
            `Content-Disposition: form-data; x="${'p'.repeat(9000)}"; name="role"`,
          );
          const small = await send('Content-Disposition: form-data; name="role"');
          // Only one plain `boundary` parameter is certain to be read as it was sent.
          const named = parameters.filter(({ value }) => value !== undefined);
          if (named.length === 1 && named[0]?.plain) {
            expect(padded.statusCode).toBe(413);
            expect(small.statusCode).toBe(200);
          }
          expect([400, 413]).toContain(padded.statusCode);
          expect([200, 400]).toContain(small.statusCode);
          if (small.statusCode === 200)
            expect(JSON.parse(String(small.body))).toEqual({ role: 'v' });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('refuses text after the boundary on a delimiter line, wherever the body is split', async () => {
    // The parser would read anything after the boundary on its line, even the spaces and tabs
    // RFC 2046 §5.1.1 allows there, as a header line the part-header watch did not count.
    const app = new RestApplication({ logger: silentLogger });
    app.post('/form', ({ formBody }) => formBody);
    const padding = fc
      .array(fc.constantFrom(' ', '\t', '-', 'X', ':', '1', '\r'), { maxLength: 6 })
      .map((chars) => chars.join(''));
    await fc.assert(
      fc.asyncProperty(
        boundary,
        padding,
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 8 }),
        async (boundary, after, onFirst, rawCuts) => {
          // `--` right after the boundary closes the body instead.
          fc.pre(!after.startsWith('--'));
          const first = onFirst ? after : '';
          const second = onFirst ? '' : after;
          const text =
            `--${boundary}${first}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n` +
            `--${boundary}${second}\r\nContent-Disposition: form-data; name="b"\r\n\r\n2\r\n` +
            `--${boundary}--\r\n`;
          const response = await app.execute(
            new Request({
              method: 'POST',
              path: '/form',
              headers: { 'content-type': `multipart/form-data; boundary="${boundary}"` },
              body: splitAt(Buffer.from(text), rawCuts),
            }),
          );
          const body = JSON.parse(String(response.body));
          if (after === '') expect(body).toEqual({ a: '1', b: '2' });
          else {
            expect(response.statusCode).toBe(400);
            expect(body.error).toBe(
              'Malformed multipart/form-data body: a delimiter line has text after the boundary (spaces and tabs included)',
            );
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads names and filenames as UTF-8, or refuses them: two names never read as one', async () => {
    // The parser decodes them leniently: bytes that are not UTF-8 became U+FFFD, and two
    // different names the same one (docs/uploads.md).
    const app = new RestApplication({ logger: silentLogger });
    app.post('/form', ({ formBody, files }) => ({
      fields: formBody,
      files: files.map((file) => [file.field, file.filename]),
    }));
    // Bytes a quoted parameter can hold as they are: no quote, backslash, CR, LF or slash, and
    // no percent sign, which could make one of the escapes the form encoder writes (`%22`).
    const nameBytes = fc
      .array(
        fc.oneof(
          fc.constantFrom([0x61], [0xe9], [0xea], [0xef, 0xbf, 0xbd], [0xc3, 0xa9], [0xc3]),
          fc
            .integer({ min: 0x20, max: 0xff })
            .filter((byte) => byte !== 0x22 && byte !== 0x5c && byte !== 0x2f && byte !== 0x25)
            .map((byte) => [byte]),
        ),
        { minLength: 1, maxLength: 5 },
      )
      .map((pieces) => Buffer.from(pieces.flat()));
    const strict = new TextDecoder('utf-8', { fatal: true });
    const decoded = (bytes: Buffer) => {
      try {
        return strict.decode(bytes);
      } catch {
        return undefined;
      }
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(nameBytes, { minLength: 1, maxLength: 3 }),
        nameBytes,
        fc.array(fc.nat(), { maxLength: 6 }),
        async (names, filename, rawCuts) => {
          const part = (disposition: Buffer, value: string) =>
            Buffer.concat([
              Buffer.from('--x\r\nContent-Disposition: form-data; '),
              disposition,
              Buffer.from(`\r\n\r\n${value}\r\n`),
            ]);
          const quoted = (name: string, bytes: Buffer) =>
            Buffer.concat([Buffer.from(`${name}="`), bytes, Buffer.from('"')]);
          const body = Buffer.concat([
            ...names.map((name, i) => part(quoted('name', name), String(i))),
            part(Buffer.concat([Buffer.from('name="f"; '), quoted('filename', filename)]), 'v'),
            Buffer.from('--x--\r\n'),
          ]);
          const response = await app.execute(
            new Request({
              method: 'POST',
              path: '/form',
              headers: { 'content-type': 'multipart/form-data; boundary=x' },
              body: splitAt(body, rawCuts),
            }),
          );
          const texts = names.map(decoded);
          const filenameText = decoded(filename);
          const result = JSON.parse(String(response.body));
          if (texts.includes(undefined) || filenameText === undefined) {
            expect(response.statusCode).toBe(400);
            expect(result.error).toBe(
              'A multipart part has a field name or filename that is not valid UTF-8',
            );
            return;
          }
          // The parser keeps no directory part, and no `.` or `..` as a name (RFC 7578 §4.2).
          fc.pre(filenameText !== '.' && filenameText !== '..');
          const first = new Map<string, string>();
          texts.forEach((text, i) => {
            if (!first.has(text as string)) first.set(text as string, String(i));
          });
          expect(response.statusCode).toBe(200);
          expect(result).toEqual({
            fields: Object.fromEntries(first),
            files: [['f', filenameText]],
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('takes text fields iff their bytes together are within fieldsSize, however they are split', async () => {
    // Files do not count toward fieldsSize; a field counts whether it is kept or skipped.
    const appWith = (fieldsSize: number) => {
      const app = new RestApplication({ logger: silentLogger, multipart: { fieldsSize } });
      app.post('/form', ({ formBody }) => Object.keys(formBody).length);
      app.post('/parts', async ({ parts }) => {
        let seen = 0;
        for await (const part of parts) if (seen++ % 2 === 0) await part.text();
        return seen;
      });
      return app;
    };
    const sizedPart = fc.record({ size: fc.integer({ min: 0, max: 30 }), file: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 80 }),
        fc.array(sizedPart, { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.constantFrom('/form', '/parts'),
        async (limit, shape, rawCuts, path) => {
          const parts = shape.map(({ size, file }, i) => ({
            name: `p${i}`,
            // `é` is two bytes in UTF-8: the limit counts bytes, not characters.
            value: 'é'.repeat(Math.floor(size / 2)) + 'a'.repeat(size % 2),
            ...(file ? { filename: `f${i}` } : {}),
          }));
          const fieldBytes = shape.reduce((sum, { size, file }) => (file ? sum : sum + size), 0);
          const { body, contentType } = multipartBody(parts);
          const response = await appWith(limit).execute(
            new Request({
              method: 'POST',
              path,
              headers: { 'content-type': contentType },
              body: splitAt(body, rawCuts),
            }),
          );
          if (fieldBytes <= limit) {
            expect(response.statusCode).toBe(200);
          } else {
            expect(response.statusCode).toBe(413);
            expect(JSON.parse(response.body as string).details).toEqual([
              { limit: 'fieldsSize', field: expect.any(String) },
            ]);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('answers any garbage with a status, never a crash', async () => {
    const { app } = buildApp();
    await fc.assert(
      fc.asyncProperty(boundary, fc.uint8Array({ maxLength: 400 }), async (boundary, garbage) => {
        const response = await app.execute(
          new Request({
            method: 'POST',
            path: '/form',
            headers: { 'content-type': `multipart/form-data; boundary="${boundary}"` },
            body: Buffer.concat([Buffer.from(`--${boundary}\r\n`), garbage]),
          }),
        );
        expect([204, 400]).toContain(response.statusCode);
      }),
      { numRuns: 150 },
    );
  });
});
