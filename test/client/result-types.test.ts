/**
 * What a typed client's responses are, in types and at run time alike: the client typed from
 * `{ app }` without a type argument, `any` results as `unknown`, results sent as bytes or relayed
 * (a Blob, a stream, an ArrayBuffer view, a WHATWG Response), and the 206 a Range header gets
 * from a GET's 200 (docs/openapi.md, "Typed clients"). The `expectTypeOf` and `@ts-expect-error`
 * lines are checked by `npm run typecheck` (tsc covers test/); the `it` blocks run the calls
 * in-process and check the data is what the types say.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import {
  type Client,
  type ClientResponse,
  createClient,
  type NoTypedRoutes,
} from '../../src/client/index.js';
import { HttpError, Response, RestApplication, silentLogger } from '../../src/index.js';

const NAMES = new Map([['1', 'ada']]);

function bodiesApi() {
  return new RestApplication({ logger: silentLogger }).withRoutes((r) => [
    r.get('/item', () => ({ hello: 'world' })),
    r.get('/text', () => 'hello world'),
    r.get('/blob-text', () => new Blob(['hello'], { type: 'text/plain' })),
    r.get('/blob-json', () => new Blob(['{"a":1}'], { type: 'application/json' })),
    r.get('/blob-bytes', () => new Blob([new Uint8Array([1, 2])])),
    r.get('/generator', async function* () {
      yield 'a';
      yield 'b';
    }),
    r.get(
      '/readable',
      () =>
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new Uint8Array([3, 4]));
            controller.close();
          },
        }),
    ),
    r.get('/view', () => new DataView(new Uint8Array([5, 6]).buffer)),
    r.get('/int16', () => new Int16Array([1])),
    r.get('/buffer', () => new Uint8Array([7]).buffer),
    r.get(
      '/upstream',
      () =>
        new globalThis.Response('{"gone":true}', {
          status: 410,
          headers: { 'content-type': 'application/json' },
        }),
    ),
    r.get('/own-response', () => new Response(202, 'accepted')),
    r.post('/relay', () => [new globalThis.Response('x', { status: 409 }), 201] as const),
    r.get('/parsed', ({ queryParams }) => JSON.parse(queryParams.json ?? '{}')),
    // biome-ignore lint/suspicious/noExplicitAny: what `await response.json()` is in the DOM lib.
    r.get('/awaited-any', async (): Promise<any> => ({ rows: [] })),
    r.get('/nested', () => ({
      bytes: new Uint8Array([1, 2]),
      view: new DataView(new ArrayBuffer(1)),
      when: new Date(0),
      loose: JSON.parse('{"x":1}'),
      // JSON leaves out a property holding a function, or one that may.
      format: () => 'x',
      onChange: undefined as (() => void) | undefined,
    })),
    // JSON writes an undefined array element as null: Map.get() of an unknown key.
    r.get('/lookups', () => [NAMES.get('1'), NAMES.get('2'), 3] as const),
    r.get('/list', () => ['1', '2'].map((id) => NAMES.get(id))),
    r.get('/declared', () => ({ id: 'a' })).returns(200, z.object({ id: z.string() })),
    r.get('/ranged', () => ({ id: 'a' })).returns(206, z.object({ id: z.string() })),
    r.post('/notes', () => [{ id: '1' }, 201] as const),
  ]);
}

type Api = ReturnType<typeof bodiesApi>;
type DataOf<Answer, Status extends number> =
  Extract<Answer, { status: Status }> extends {
    data: infer Data;
  }
    ? Data
    : never;

describe('createClient({ app }) without a type argument', () => {
  it('is typed from the application', async () => {
    const api = bodiesApi();
    const client = createClient({ app: api });
    expectTypeOf(client).toEqualTypeOf<Client<Api>>();
    const item = await client.get('/item');
    expect(item.status).toBe(200);
    if (item.status === 200) {
      expectTypeOf(item.data).toEqualTypeOf<{ hello: string }>();
      expect(item.data.hello).toBe('world');
    }
    // A type argument still wins, as before.
    expectTypeOf(createClient<Api>({ app: api })).toEqualTypeOf<Client<Api>>();
  });

  it('names what is missing when the client knows no routes', () => {
    // Routes registered by statements: the application's type carries none.
    const app = new RestApplication({ logger: silentLogger });
    app.get('/notes', () => []);
    const untyped = createClient({ app });
    const remote = createClient({ baseUrl: 'http://127.0.0.1:9' });
    expectTypeOf(remote).toEqualTypeOf<Client<unknown>>();
    expectTypeOf<Parameters<typeof untyped.get>[0]>().toEqualTypeOf<NoTypedRoutes>();
    expectTypeOf<Parameters<typeof remote.post>[0]>().toEqualTypeOf<NoTypedRoutes>();
    // A method with no typed route says the same.
    const typed = createClient({ app: bodiesApi() });
    expectTypeOf<Parameters<typeof typed.put>[0]>().toEqualTypeOf<NoTypedRoutes>();
    const mistakes = () => {
      // @ts-expect-error: Argument of type 'string' is not assignable to parameter of type 'NoTypedRoutes'.
      untyped.get('/notes');
      // @ts-expect-error: the same over fetch without a type argument.
      remote.get('/notes');
    };
    expectTypeOf(mistakes).toBeFunction();
  });
});

describe('typed client data', () => {
  const client = createClient({ app: bodiesApi() });

  it('is unknown for a handler returning any, at any depth; has no key of a function', async () => {
    type Parsed = Awaited<ReturnType<typeof client.get<'/parsed'>>>;
    expectTypeOf<Parsed['data']>().toEqualTypeOf<unknown>();
    expectTypeOf<Parsed['status']>().toEqualTypeOf<number>();
    type AwaitedAny = Awaited<ReturnType<typeof client.get<'/awaited-any'>>>;
    expectTypeOf<AwaitedAny['data']>().toEqualTypeOf<unknown>();
    type Nested = Awaited<ReturnType<typeof client.get<'/nested'>>>;
    expectTypeOf<DataOf<Nested, 200>>().toEqualTypeOf<{
      bytes: Record<string, number>;
      view: Record<string, never>;
      when: string;
      loose: unknown;
    }>();
    const parsed = await client.get('/parsed', { query: { json: '{"rows":[1]}' } });
    expect(parsed.data).toEqual({ rows: [1] });
    type Lookups = Awaited<ReturnType<typeof client.get<'/lookups'>>>;
    expectTypeOf<DataOf<Lookups, 200>>().toEqualTypeOf<[string | null, string | null, 3]>();
    expect((await client.get('/lookups')).data).toEqual(['ada', null, 3]);
    type List = Awaited<ReturnType<typeof client.get<'/list'>>>;
    expectTypeOf<DataOf<List, 200>>().toEqualTypeOf<(string | null)[]>();
    expect((await client.get('/list')).data).toEqual(['ada', null]);
    const nested = await client.get('/nested');
    // Through JSON a typed array is an object of its indexes, a DataView an empty object.
    expect(nested.data).toEqual({
      bytes: { 0: 1, 1: 2 },
      view: {},
      when: '1970-01-01T00:00:00.000Z',
      loose: { x: 1 },
    });
  });

  it('is bytes for streams, ArrayBuffers and their views', async () => {
    for (const path of ['/view', '/int16', '/buffer'] as const) {
      const answer = await client.get(path);
      expectTypeOf<Extract<typeof answer, { status: 200 | 206 }>>().toEqualTypeOf<
        ClientResponse<200, Uint8Array> | ClientResponse<206, Uint8Array>
      >();
      expect(answer.status).toBe(200);
      expect(answer.data).toBeInstanceOf(Uint8Array);
    }
    // A stream is sent whole, whatever the Range header asks: its union has no 206.
    for (const path of ['/generator', '/readable'] as const) {
      const answer = await client.get(path, { headers: { range: 'bytes=0-0' } });
      expectTypeOf<Extract<typeof answer, { status: 200 | 206 }>>().toEqualTypeOf<
        ClientResponse<200, Uint8Array>
      >();
      expect(answer.status).toBe(200);
      expect(answer.data).toBeInstanceOf(Uint8Array);
    }
    const generated = await client.get('/generator');
    if (generated.status === 200) expect(new TextDecoder().decode(generated.data)).toBe('ab');
    const view = await client.get('/view');
    if (view.status === 200) expect([...view.data]).toEqual([5, 6]);
  });

  it('is unknown for a Blob, which is sent with its own type', async () => {
    type Blobbed = Awaited<ReturnType<typeof client.get<'/blob-text'>>>;
    expectTypeOf<DataOf<Blobbed, 200>>().toEqualTypeOf<unknown>();
    expect((await client.get('/blob-text')).data).toBe('hello');
    expect((await client.get('/blob-json')).data).toEqual({ a: 1 });
    expect((await client.get('/blob-bytes')).data).toEqual(new Uint8Array([1, 2]));
  });

  it("keeps a Response's own status and body unknown, also in a tuple", async () => {
    type Upstream = Awaited<ReturnType<typeof client.get<'/upstream'>>>;
    expectTypeOf<Upstream['status']>().toEqualTypeOf<number>();
    expectTypeOf<Upstream['data']>().toEqualTypeOf<unknown>();
    type Own = Awaited<ReturnType<typeof client.get<'/own-response'>>>;
    expectTypeOf<Own['data']>().toEqualTypeOf<unknown>();
    type Relayed = Awaited<ReturnType<typeof client.post<'/relay'>>>;
    expectTypeOf<Relayed['status']>().toEqualTypeOf<number>();
    expectTypeOf<Relayed['data']>().toEqualTypeOf<unknown>();
    const upstream = await client.get('/upstream');
    expect(upstream.status).toBe(410);
    expect(upstream.data).toEqual({ gone: true });
    const relayed = await client.post('/relay');
    expect(relayed.status).toBe(409);
  });
});

describe('the 206 of a Range header', () => {
  const client = createClient({ app: bodiesApi() });

  it('is in the union of a GET that may answer 200, with the slice as bytes', async () => {
    const ranged = await client.get('/item', { headers: { range: 'bytes=0-4' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe('bytes 0-4/17');
    if (ranged.status === 206) {
      expectTypeOf(ranged.data).toEqualTypeOf<Uint8Array>();
      expect(new TextDecoder().decode(ranged.data)).toBe('{"hel');
    }
    // A slice of text is bytes too: it may cut a character in two.
    const text = await client.get('/text', { headers: { range: 'bytes=6-' } });
    expect(text.status).toBe(206);
    expect(text.data).toEqual(new TextEncoder().encode('world'));
    type Declared = Awaited<ReturnType<typeof client.get<'/declared'>>>;
    expectTypeOf<DataOf<Declared, 206>>().toEqualTypeOf<Uint8Array>();
  });

  it('is not added where a route declares its own 206, nor to other methods', () => {
    type Ranged = Awaited<ReturnType<typeof client.get<'/ranged'>>>;
    expectTypeOf<DataOf<Ranged, 206>>().toEqualTypeOf<{ id: string }>();
    type Created = Awaited<ReturnType<typeof client.post<'/notes'>>>;
    expectTypeOf<Extract<Created, { status: 206 }>>().toBeNever();
  });
});

describe('error statuses', () => {
  it('include any status from 400 to 599 an HttpError may answer, with unknown data', async () => {
    const api = new RestApplication({ logger: silentLogger }).withRoutes((r) => [
      r.get('/teapot', () => {
        throw new HttpError(418, 'No coffee here');
      }),
      r.get('/gone', () => ({ id: 'a' })),
    ]);
    const client = createClient({ app: api });
    const teapot = await client.get('/teapot');
    expect(teapot.status).toBe(418);
    if (teapot.status === 418) {
      expectTypeOf(teapot.data).toBeUnknown();
      expect(teapot.data).toMatchObject({ error: 'No coffee here' });
    }
    type Gone = Awaited<ReturnType<typeof client.get<'/gone'>>>;
    expectTypeOf<DataOf<Gone, 499>>().toBeUnknown();
    expectTypeOf<DataOf<Gone, 200>>().toEqualTypeOf<{ id: string }>();
    // Not a status: beyond 599, or a success the route never gives.
    expectTypeOf<Extract<Gone, { status: 600 }>>().toBeNever();
    expectTypeOf<Extract<Gone, { status: 201 }>>().toBeNever();
  });
});
