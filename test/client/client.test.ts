/**
 * createClient() against a real application, in-process and over real HTTP on 127.0.0.1: the
 * same calls, the same answers. Path parameters are encoded as one segment whatever they hold.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type ServeHandle, serve } from '../../src/adapters/node/index.js';
import { fillTemplate } from '../../src/client/call-text.js';
import { createClient } from '../../src/client/index.js';
import {
  HttpError,
  Response,
  RestApplication,
  Router,
  SetupError,
  silentLogger,
} from '../../src/index.js';

const Note = z.object({ id: z.string(), text: z.string(), pinned: z.boolean() });
type NoteValue = z.output<typeof Note>;

function notesApi() {
  const notes = new Map<string, NoteValue>([['1', { id: '1', text: 'first', pinned: false }]]);
  const app = new RestApplication({ logger: silentLogger })
    .validates('newNote', z.object({ text: z.string().min(1), pinned: z.boolean().default(false) }))
    .validates('page', z.object({ tag: z.array(z.string()).or(z.string()).optional() }), {
      source: 'queryParams',
    })
    .validates('form', z.object({ email: z.email(), note: z.string().optional() }), {
      source: 'formBody',
    })
    .validates('filters', z.object({ tag: z.string() }).optional())
    .validates('trace', z.object({ 'x-trace': z.string().optional() }), { source: 'headers' })
    .resourceExists('note', ({ pathParams }) => notes.get(pathParams.id ?? ''));
  const files = new Router().withRoutes((r) => [r.get('/{path*}', ({ path }) => ({ path }))]);
  return app
    .withRoutes((r) => [
      r
        .get('/notes/{id}', ({ note }) => note)
        .returns(200, Note)
        .returns(404),
      r
        .post('/notes', ({ newNote }) => {
          const note = { id: String(notes.size + 1), ...newNote };
          notes.set(note.id, note);
          return [note, 201] as const;
        })
        .uses('newNote'),
      r.get('/search', ({ queryParamsAll, page }) => ({ all: queryParamsAll, page })).uses('page'),
      r.put('/echo/{name}', ({ name, headers, jsonBody }) => ({
        name,
        trace: headers.get('x-trace'),
        auth: headers.get('authorization'),
        jsonBody,
      })),
      r.patch('/subscribe', ({ form }) => form).uses('form'),
      r.get('/traced', ({ trace }) => trace).uses('trace'),
      r.post('/find', ({ filters }) => ({ tag: filters?.tag ?? null })).uses('filters'),
      r.delete('/notes/{id}', ({ id }) => {
        notes.delete(id);
      }),
      // Literal segments the URL would cut short or misread, unless encoded.
      r.get('/odd/50%/c#d/q?x/{id}', ({ id }) => ({ id })),
      r.get('/teapot', () => {
        throw new HttpError(418, 'I am a teapot');
      }),
      r.get('/text', () => 'plain words').provides('text/plain', ({ result }) => String(result)),
      // Empty values of each kind: the client gives back what the handler's type says.
      r.get('/empty-text', () => ''),
      r.get('/empty-bytes', () => new Uint8Array(0)),
      r.post('/accepted', () => [undefined, 202] as const),
      r.get(
        '/latin1',
        () =>
          new Response(200, Uint8Array.of(0x63, 0x61, 0x66, 0xe9), {
            contentType: 'text/plain; charset=iso-8859-1',
          }),
      ),
      // Answers when the request is aborted, saying whether the handler saw it.
      r.get(
        '/slow',
        ({ signal }) =>
          new Promise((resolve) =>
            signal.addEventListener('abort', () => resolve({ aborted: true })),
          ),
      ),
    ])
    .mount('/files', files);
}

type Api = ReturnType<typeof notesApi>;

let server: ServeHandle;
const served = notesApi();
beforeAll(async () => {
  server = await serve(served, { port: 0, host: '127.0.0.1', handleSignals: false });
});
afterAll(async () => {
  await server.close();
});

const ways = [
  [
    'in-process',
    () => createClient<Api>({ app: notesApi(), headers: { authorization: 'Bearer t' } }),
  ],
  [
    'over HTTP',
    () => createClient<Api>({ baseUrl: `${server.url}/`, headers: { authorization: 'Bearer t' } }),
  ],
] as const;

describe.each(ways)('createClient %s', (_way, make) => {
  it('GET with a path parameter: the declared body, typed by status', async () => {
    const client = make();
    const found = await client.get('/notes/{id}', { params: { id: '1' } });
    expect(found.status).toBe(200);
    if (found.status === 200) expect(found.data.text).toBe('first');
    expect(found.headers.get('content-type')).toBe('application/json');
    const missing = await client.get('/notes/{id}', { params: { id: '404' } });
    expect(missing.status).toBe(404);
    expect(missing.data).toMatchObject({ statusCode: 404 });
  });

  it('POST sends json; a tuple result gives its status; 422 does not throw', async () => {
    const client = make();
    const created = await client.post('/notes', { json: { text: 'second' } });
    expect(created.status).toBe(201);
    if (created.status === 201)
      expect(created.data).toMatchObject({ text: 'second', pinned: false });
    // @ts-expect-error: the validator's input type refuses it; the server does too
    const invalid = await client.post('/notes', { json: { text: '', pinned: 'no' } });
    expect(invalid.status).toBe(422);
  });

  it('leaves out a body its validator lets go, and sends it when given', async () => {
    const client = make();
    const without = await client.post('/find');
    expect(without.status).toBe(200);
    expect(without.data).toEqual({ tag: null });
    const given = await client.post('/find', { json: { tag: 'work' } });
    expect(given.data).toEqual({ tag: 'work' });
  });

  it('rejects with the reason when the signal aborts, before or during the call', async () => {
    const client = make();
    const reason = new DOMException('The user left', 'AbortError');
    const during = new AbortController();
    const pending = client.get('/slow', { signal: during.signal });
    setTimeout(() => during.abort(reason), 50);
    await expect(pending).rejects.toThrow('The user left');
    const before = AbortSignal.abort(reason);
    await expect(
      client.get('/notes/{id}', { params: { id: '1' }, signal: before }),
    ).rejects.toThrow('The user left');
  });

  it('query values, repeated keys as arrays, an empty one as no key', async () => {
    const client = make();
    const found = await client.get('/search', { query: { tag: ['a', 'b c'] } });
    expect(found.status).toBe(200);
    // The validator's `tag` may be an array, so it sees every value, as `queryParamsAll` does.
    expect(found.data).toEqual({ all: { tag: ['a', 'b c'] }, page: { tag: ['a', 'b c'] } });
    // An empty list is no repeated key at all: the server sees the parameter missing.
    const none = await client.get('/search', { query: { tag: [] } });
    expect(none.data).toEqual({ all: {}, page: {} });
    // What has no text is refused rather than sent as "null" or "[object Object]".
    for (const tag of [null, { a: 1 }, [null]]) {
      // @ts-expect-error: the types refuse it too
      await expect(client.get('/search', { query: { tag } })).rejects.toThrow(
        /GET \/search: the query parameter "tag" is (null|an object), which has no text to send/,
      );
    }
  });

  it('headers: the client’s defaults and the call’s; json for a route that names no validator', async () => {
    const client = make();
    const echoed = await client.put('/echo/{name}', {
      params: { name: 'a/b?c' },
      headers: { 'x-trace': 't1' },
      json: [1, 2],
    });
    expect(echoed.data).toEqual({ name: 'a/b?c', trace: 't1', auth: 'Bearer t', jsonBody: [1, 2] });
  });

  it('form bodies, DELETE answered 204 without data, text, bytes-free errors', async () => {
    const client = make();
    const subscribed = await client.patch('/subscribe', { form: { email: 'a@example.com' } });
    expect(subscribed.data).toEqual({ email: 'a@example.com' });
    const removed = await client.delete('/notes/{id}', { params: { id: 1 } });
    expect(removed).toMatchObject({ status: 204, data: undefined });
    const teapot = await client.get('/teapot');
    expect(teapot.status).toBe(418);
    expect(teapot.data).toMatchObject({ error: 'I am a teapot' });
    const text = await client.get('/text', { headers: { accept: 'text/plain' } });
    expect(text.data).toBe('plain words');
  });

  it('leaves out a form field set to undefined, as a query does', async () => {
    const client = make();
    const subscribed = await client.patch('/subscribe', {
      form: { email: 'a@example.com', note: undefined },
    });
    expect(subscribed.data).toEqual({ email: 'a@example.com' });
  });

  it('refuses a path parameter or a form field with no text, before sending', async () => {
    const client = make();
    await expect(
      // @ts-expect-error: the types refuse it too
      client.get('/notes/{id}', { params: { id: { a: 1 } } }),
    ).rejects.toThrow(/the path parameter "id" is an object, which has no text to send/);
    await expect(
      // @ts-expect-error: the types refuse it too
      client.patch('/subscribe', { form: { email: 'a@example.com', note: null } }),
    ).rejects.toThrow(/PATCH \/subscribe: the form field "note" is null/);
  });

  it('does not send a header set to undefined', async () => {
    const client = make();
    const traced = await client.get('/traced', { headers: { 'x-trace': undefined } });
    expect(traced.data).toEqual({});
  });

  it('removes a default header the call sets to undefined: an anonymous call from a configured client', async () => {
    const client = make();
    for (const name of ['authorization', 'Authorization']) {
      const anonymous = await client.put('/echo/{name}', {
        params: { name: 'anon' },
        headers: { [name]: undefined },
        json: [],
      });
      expect(anonymous.data).toEqual({ name: 'anon', jsonBody: [] });
    }
    // The default stays for the calls that do not remove it.
    const signed = await client.put('/echo/{name}', { params: { name: 'me' }, json: [] });
    expect(signed.data).toMatchObject({ auth: 'Bearer t' });
  });

  it('an empty text is "", zero bytes are bytes, and an answer without content is undefined', async () => {
    const client = make();
    const text = await client.get('/empty-text');
    expect(text.headers.get('content-length')).toBe('0');
    expect(text).toMatchObject({ status: 200, data: '' });
    const bytes = await client.get('/empty-bytes');
    expect(bytes.status).toBe(200);
    expect(bytes.data).toEqual(new Uint8Array(0));
    const accepted = await client.post('/accepted');
    expect(accepted).toMatchObject({ status: 202, data: undefined });
  });

  it('text in the charset its Content-Type declares', async () => {
    const client = make();
    expect((await client.get('/latin1')).data).toBe('café');
  });

  it('a mounted router’s routes, prefixed; a catch-all keeps its slashes', async () => {
    const client = make();
    const file = await client.get('/files/{path*}', { params: { path: 'a b/c.txt' } });
    expect(file.data).toEqual({ path: 'a b/c.txt' });
  });

  it('reaches a route whose literal segments hold "%", "#" or "?"', async () => {
    const client = make();
    const odd = await client.get('/odd/50%/c#d/q?x/{id}', { params: { id: '1' } });
    expect([odd.status, odd.data]).toEqual([200, { id: '1' }]);
  });
});

describe('createClient failures', () => {
  it('rejects only when the network fails', async () => {
    const client = createClient<Api>({ baseUrl: 'http://127.0.0.1:9' });
    await expect(client.get('/teapot')).rejects.toThrow();
  });

  it('a missing path parameter is a TypeError before anything is sent', () => {
    expect(() => fillTemplate('/notes/{id}', {})).toThrow(TypeError);
  });

  it('a lone surrogate, which has no UTF-8, is a TypeError naming where it is', async () => {
    const sent: string[] = [];
    const client = createClient<Api>({
      baseUrl: 'http://127.0.0.1:9',
      fetch: (request) => {
        sent.push(request.url);
        return Promise.reject(new Error('not sent'));
      },
    });
    const lone = '\uD800';
    await expect(client.get('/notes/{id}', { params: { id: lone } })).rejects.toThrow(
      new TypeError(
        '/notes/{id}: the path parameter "id" has a lone surrogate, which UTF-8 cannot encode',
      ),
    );
    await expect(client.get('/files/{path*}', { params: { path: `a/b${lone}` } })).rejects.toThrow(
      /the path parameter "path" has a lone surrogate/,
    );
    await expect(client.get('/search', { query: { tag: ['a', `b${lone}`] } })).rejects.toThrow(
      /GET \/search: the query parameter "tag" has a lone surrogate/,
    );
    await expect(
      client.patch('/subscribe', { form: { email: 'a@example.com', note: lone } }),
    ).rejects.toThrow(/PATCH \/subscribe: the form field "note" has a lone surrogate/);
    expect(sent).toEqual([]);
  });
});

describe('fillTemplate', () => {
  // What a request is sent to: the path as the URL parser resolves it, as fetch does.
  const resolved = (path: string) => new URL(path, 'http://127.0.0.1').pathname;
  const dotOrEmpty = fc.constantFrom('', '.', '..');
  const segmentValue = fc.oneof(fc.string(), dotOrEmpty);

  it('keeps any parameter value inside its one segment once resolved, or throws (property)', () => {
    fc.assert(
      fc.property(segmentValue, (value) => {
        if (value === '' || value === '.' || value === '..') {
          expect(() => fillTemplate('/a/{id}/b', { id: value })).toThrow(TypeError);
          return;
        }
        const path = resolved(fillTemplate('/a/{id}/b', { id: value }));
        const segments = path.split('/');
        expect(segments).toHaveLength(4);
        expect(segments[3]).toBe('b');
        expect(decodeURIComponent(segments[2] as string)).toBe(value);
      }),
    );
  });

  it('a catch-all value reaches its route as it was, or throws before anything is sent (property)', async () => {
    const app = new RestApplication({ logger: silentLogger }).withRoutes((r) => [
      r.get('/files/{rest*}', ({ rest }) => ({ rest })),
    ]);
    const client = createClient({ app });
    const part = fc.oneof(fc.string(), fc.constantFrom('', '.', '..', '\\', '\0', 'a\\b', '%2F'));
    // What the router cannot give back: an empty segment it drops, a dot segment the URL
    // removes, a segment with a backslash or NUL that a catch-all does not match.
    const refused = (rest: string) =>
      rest !== '' &&
      rest
        .split('/')
        .some((segment) => ['', '.', '..'].includes(segment) || /[\\\0]/.test(segment));
    await fc.assert(
      fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 5 }), async (parts) => {
        const rest = parts.join('/');
        if (refused(rest)) {
          expect(() => fillTemplate('/files/{rest*}', { rest })).toThrow(TypeError);
          return;
        }
        expect(fillTemplate('/files/{rest*}', { rest })).not.toMatch(/[?#]/);
        const answer = await client.get('/files/{rest*}', { params: { rest } });
        expect([answer.status, answer.data]).toEqual([200, { rest }]);
      }),
    );
  });

  it('refuses a catch-all value the router would change or not match', async () => {
    const served: string[] = [];
    const app = new RestApplication({ logger: silentLogger }).withRoutes((r) => [
      r.get('/files/{rest*}', ({ rest }) => void served.push(rest)),
    ]);
    const client = createClient<typeof app>({ app });
    for (const [rest, why] of [
      ['a//b', /empty segment/],
      ['/a', /empty segment/],
      ['a/', /empty segment/],
      ['a\\b', /"\\" or NUL/],
      ['a/\0', /"\\" or NUL/],
    ] as const) {
      await expect(client.get('/files/{rest*}', { params: { rest } })).rejects.toThrow(why);
    }
    await client.get('/files/{rest*}', { params: { rest: '' } });
    await client.get('/files/{rest*}', { params: { rest: 'a/b' } });
    expect(served).toEqual(['', 'a/b']);
  });

  it('reaches a route by its template whatever its literal segments hold (property)', async () => {
    // Any segment a template may have as a literal: not empty, no dot segment, no `/` or braces,
    // no percent-escape (`%00`: a template writes the character itself), and not the `:id` or
    // `*` syntax of other routers, which registration refuses.
    const character = fc.oneof(
      fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    );
    const literal = fc
      .string({ unit: character, minLength: 1 })
      .filter((text) => !/[/{}]|^[:*]|%[0-9A-Fa-f]{2}/.test(text) && text !== '.' && text !== '..');
    await fc.assert(
      fc.asyncProperty(literal, async (text) => {
        const app = new RestApplication({ logger: silentLogger }).withRoutes((r) => [
          r.get(`/${text}/{id}`, ({ id }) => ({ id })),
        ]);
        const client = createClient({ app });
        const answer = await client.get(`/${text}/{id}`, { params: { id: '1' } });
        expect([answer.status, answer.data]).toEqual([200, { id: '1' }]);
      }),
    );
  });

  it('refuses a dot segment that would reach another route', async () => {
    const deleted: string[] = [];
    const app = new RestApplication({ logger: silentLogger }).withRoutes((r) => [
      r.delete('/users/{id}', ({ id }) => void deleted.push(`user ${id}`)),
      r.delete('/users/{id}/sessions/{sid}', ({ sid }) => void deleted.push(`session ${sid}`)),
    ]);
    const client = createClient<typeof app>({ app });
    for (const sid of ['..', '.', '']) {
      await expect(
        client.delete('/users/{id}/sessions/{sid}', { params: { id: '42', sid } }),
      ).rejects.toThrow(TypeError);
    }
    await client.delete('/users/{id}/sessions/{sid}', { params: { id: '42', sid: '...' } });
    expect(deleted).toEqual(['session ...']);
  });
});

describe('route.uses()', () => {
  it('is a startup error when the handler does not reach the validator', async () => {
    const app = new RestApplication({ logger: silentLogger }).validates('newNote', Note);
    app.withRoutes((r) => [r.post('/notes', () => null).uses('newNote')]);
    await expect(app.startup()).rejects.toThrow(/uses\("newNote"\), but neither the handler/);
  });

  it('is a startup error for a name that is no Standard Schema validator', async () => {
    const app = new RestApplication({ logger: silentLogger }).validates('checked', () => 1);
    // @ts-expect-error: only Standard Schema validators describe a request
    app.post('/x', ({ checked }) => checked).uses('checked');
    const error = await app.startup().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SetupError);
    expect((error as SetupError).message).toMatch(
      /names no validator registered with a Standard Schema/,
    );
  });

  it('passes through providers that inject the validator', async () => {
    const app = new RestApplication({ logger: silentLogger })
      .validates('newNote', Note)
      .dependency('saved', ({ newNote }) => newNote.id);
    const api = app.withRoutes((r) => [
      r.post('/notes', ({ saved }) => ({ saved })).uses('newNote'),
    ]);
    await api.startup();
    const client = createClient<typeof api>({ app: api });
    const answer = await client.post('/notes', { json: { id: '9', text: 't', pinned: true } });
    expect(answer).toMatchObject({ status: 200, data: { saved: '9' } });
  });
});
