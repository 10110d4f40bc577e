/**
 * What a part's headers say, over real HTTP (the Node adapter on 127.0.0.1, `fetch` as the
 * client): names and filenames as browsers and FormData encode them, a repeated parameter or
 * Content-Disposition refused, a text part's declared charset honoured (docs/uploads.md).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeHandle } from '../../../src/adapters/node/index.js';
import { RestApplication, silentLogger } from '../../../src/index.js';
import { start } from '../../adapters/node/helpers.js';

let server: ServeHandle;

beforeAll(async () => {
  const app = new RestApplication({ logger: silentLogger });
  app.post('/form', ({ formBody, files }) => ({
    formBody,
    files: files.map((file) => [file.field, file.filename]),
  }));
  app.post('/parts', async ({ parts }) => {
    const seen: unknown[] = [];
    for await (const part of parts)
      seen.push([part.field, part.filename ?? null, await part.text()]);
    return seen;
  });
  server = await start(app);
});

afterAll(() => server.close());

/** POSTs `parts` (each its header lines and content, as latin1 bytes) as one multipart body. */
async function sendParts(path: string, parts: [headers: string[], content: Buffer | string][]) {
  const body = Buffer.concat([
    ...parts.map(([headers, content]) =>
      Buffer.concat([
        Buffer.from(`--B\r\n${headers.join('\r\n')}\r\n\r\n`, 'latin1'),
        Buffer.from(content),
        Buffer.from('\r\n'),
      ]),
    ),
    Buffer.from('--B--\r\n'),
  ]);
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'multipart/form-data; boundary=B' },
    body,
  });
  return { status: response.status, body: await response.json() };
}

/** A FormData as fetch() sends it: the bytes undici's encoder (the HTML standard's) writes. */
async function sendForm(path: string, form: FormData) {
  const wire = new Response(form);
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': wire.headers.get('content-type') as string },
    body: await wire.arrayBuffer(),
  });
  return { status: response.status, body: await response.json() };
}

describe('names and filenames', () => {
  it('reads them as browsers and fetch() send them: %22, %0D and %0A decoded, backslashes kept', async () => {
    const form = new FormData();
    form.append('photos\\', new Blob(['PNG'], { type: 'image/png' }), 'cat.png');
    form.append('doc', new Blob(['PDF']), 'My "final" report.pdf');
    form.append('note', new Blob(['x']), 'line1\nline2.txt');
    form.append('say "hi"', 'hello');
    form.append('100%22', 'a percent sign the client typed is sent as it is');
    const response = await sendForm('/form', form);
    expect(response).toEqual({
      status: 200,
      body: {
        formBody: {
          'say "hi"': 'hello',
          '100"': 'a percent sign the client typed is sent as it is',
        },
        files: [
          ['photos\\', 'cat.png'],
          ['doc', 'My "final" report.pdf'],
          ['note', 'line1\nline2.txt'],
        ],
      },
    });
    // What the Fetch standard's own parser reads from the same bytes.
    const wire = new Response(form);
    const back = await new Response(await wire.arrayBuffer(), {
      headers: { 'content-type': wire.headers.get('content-type') as string },
    }).formData();
    expect([...back.keys()]).toEqual(['photos\\', 'doc', 'note', 'say "hi"', '100"']);
  });

  it('reads back any names and filenames FormData encodes', async () => {
    const character = fc.oneof(
      fc.constantFrom('"', '\\', '\r', '\n', '\r\n', ';', '%', '%22', '%0D', '%0a', '=', "'", '*'),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    );
    const text = fc.string({ unit: character, minLength: 1, maxLength: 12 });
    // A filename keeps no directory part (docs/uploads.md), and `.` or `..` alone is no name.
    const asFilename = (filename: string) => {
      const last = filename.slice(
        Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\')) + 1,
      );
      return last === '.' || last === '..' ? '' : last;
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(text, fc.option(text, { nil: undefined })), {
          minLength: 1,
          maxLength: 4,
        }),
        async (entries) => {
          const form = new FormData();
          for (const [name, filename] of entries) {
            if (filename === undefined) form.append(name, 'v');
            else form.append(name, new Blob(['v']), filename);
          }
          const response = await sendForm('/parts', form);
          // What the Fetch standard's own parser reads from the same bytes.
          const wire = new Response(form);
          const fetchReads = await new Response(await wire.arrayBuffer(), {
            headers: { 'content-type': wire.headers.get('content-type') as string },
          }).formData();
          const expected = [...fetchReads].map(([name, value]) => [
            name,
            typeof value === 'string' ? null : asFilename(value.name),
            'v',
          ]);
          expect(response).toEqual({ status: 200, body: expected });
          // The names as given, but for what the encoder itself changes: a lone CR or LF in a
          // field name becomes CRLF, and a `%22`, `%0D` or `%0A` typed by the user is sent as
          // it is, so it reads as the character the encoder writes it for.
          if (!entries.flat().some((each) => each !== undefined && /%(22|0d|0a)/i.test(each))) {
            expect(expected).toEqual(
              entries.map(([name, filename]) => [
                name.replace(/\r?\n|\r/g, '\r\n'),
                filename === undefined ? null : asFilename(filename),
                'v',
              ]),
            );
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('refuses a repeated parameter or Content-Disposition: readers disagree on which counts', async () => {
    for (const [disposition, parameter] of [
      ['form-data; name="role"; name="admin"', 'name'],
      ['form-data; name="up"; filename="cat.jpg"; filename="shell.php"', 'filename'],
      ['form-data; filename="cat.jpg"; name="up"; FileName="shell.php"', 'filename'],
      ['form-data; name="up"; filename="cat.jpg"; filename="shell.php"; x="a\\\\b"', 'filename'],
      ["form-data; name=a; name*=utf-8''b; NAME*=utf-8''c", 'name*'],
    ]) {
      const headers = [`Content-Disposition: ${disposition}`];
      for (const path of ['/form', '/parts']) {
        expect(await sendParts(path, [[headers, 'v']]), disposition).toMatchObject({
          status: 400,
          body: {
            error: `A multipart part's Content-Disposition gives the ${parameter} parameter more than once`,
          },
        });
      }
    }
    const twoLines = [
      'Content-Disposition: form-data; name="role"',
      'Content-Disposition: form-data; name="admin"; filename="x.php"',
    ];
    expect(await sendParts('/form', [[twoLines, 'v']])).toMatchObject({
      status: 400,
      body: {
        error: 'A multipart part has more than one Content-Disposition',
      },
    });
  });

  it('refuses any parameter given twice, in any case and spelling, and takes the rest', async () => {
    const casing = (name: string) =>
      fc
        .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
        .map((upper) => [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));
    const parameter = fc.tuple(
      fc.constantFrom('name', 'filename', 'x').chain(casing),
      fc.stringMatching(/^[a-z0-9.]{1,6}$/),
      fc.boolean(),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(parameter, { minLength: 1, maxLength: 5 }), async (given) => {
        const disposition = [
          'form-data',
          ...given.map(([key, value, quoted]) => `${key}=${quoted ? `"${value}"` : value}`),
        ].join('; ');
        const response = await sendParts('/form', [[[`Content-Disposition: ${disposition}`], 'v']]);
        const keys = given.map(([key]) => key.toLowerCase());
        const twice = keys.find((key, i) => keys.indexOf(key) !== i);
        if (twice !== undefined) {
          expect(response).toMatchObject({
            status: 400,
            body: {
              error: `A multipart part's Content-Disposition gives the ${twice} parameter more than once`,
            },
          });
          return;
        }
        const value = (key: string) => given.find(([each]) => each.toLowerCase() === key)?.[1];
        const name = value('name');
        const filename = value('filename');
        if (name === undefined) expect(response.status).toBe(400);
        else if (filename === undefined) {
          expect(response.body).toEqual({ formBody: { [name]: 'v' }, files: [] });
        } else {
          const kept = filename === '.' || filename === '..' ? '' : filename;
          expect(response.body).toEqual({ formBody: {}, files: [[name, kept]] });
        }
      }),
      { numRuns: 150 },
    );
  });

  it('refuses a quote escaped with a backslash, which the encoder never writes', async () => {
    const headers = ['Content-Disposition: form-data; name="a\\"b"'];
    expect(await sendParts('/form', [[headers, 'v']])).toMatchObject({
      status: 400,
      body: {
        error: `Malformed multipart/form-data body: a part's Content-Disposition cannot be read: ${JSON.stringify('form-data; name="a\\"b"')}`,
      },
    });
  });

  it('takes filename* over filename: two different parameters (RFC 8187)', async () => {
    const headers = [
      `Content-Disposition: form-data; name="up"; filename="cat.jpg"; filename*=UTF-8''%E2%82%AC.jpg`,
    ];
    expect(await sendParts('/form', [[headers, 'v']])).toEqual({
      status: 200,
      body: { formBody: {}, files: [['up', '€.jpg']] },
    });
  });
});

describe('a text part with a declared charset', () => {
  const city = (type: string, content: Buffer | string) =>
    [['Content-Disposition: form-data; name="city"', `Content-Type: ${type}`], content] as [
      string[],
      Buffer | string,
    ];

  it('is read in that charset, in formBody and by a part’s text()', async () => {
    for (const [type, content] of [
      ['text/plain; charset=ISO-8859-1', Buffer.from('Zürich', 'latin1')],
      ['text/plain; charset=utf-16le', Buffer.from('Zürich', 'utf16le')],
      ['text/plain; charset=UTF-8', 'Zürich'],
      ['text/plain', 'Zürich'],
    ] as const) {
      expect(await sendParts('/form', [city(type, content)]), type).toEqual({
        status: 200,
        body: { formBody: { city: 'Zürich' }, files: [] },
      });
      expect(await sendParts('/parts', [city(type, content)]), type).toEqual({
        status: 200,
        body: [['city', null, 'Zürich']],
      });
    }
  });

  it('is 415 in a charset nobody knows, 400 with bytes its charset cannot hold', async () => {
    for (const path of ['/form', '/parts']) {
      expect(
        await sendParts(path, [city('text/plain; charset=x-no-such', 'Zurich')]),
      ).toMatchObject({
        status: 415,
        body: { error: 'Unsupported charset in text/plain; charset=x-no-such of field "city"' },
      });
      const invalid = Buffer.from([0x5a, 0xc3]);
      expect(await sendParts(path, [city('text/plain; charset=utf-8', invalid)])).toMatchObject({
        status: 400,
        body: { error: 'Field "city" is not valid UTF-8' },
      });
    }
  });
});
