import { describe, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { createClient } from '../../src/client/index.js';
import { RestApplication, Router } from '../../src/index.js';

const Note = z.object({ id: z.string(), text: z.string(), created: z.date() });
const NewNote = z.object({ text: z.string().min(1), pinned: z.boolean().default(false) });
const Page = z.object({ limit: z.coerce.number().int().optional(), tag: z.string().optional() });

function build() {
  const app = new RestApplication()
    .validates('newNote', NewNote)
    .validates('page', Page, { source: 'queryParams' })
    .resourceExists('note', ({ pathParams }) =>
      pathParams.id === '1' ? { id: '1', text: 'a', created: new Date(0) } : undefined,
    );
  return app.withRoutes((r) => [
    r.get('/notes', ({ page }) => [{ id: '1', text: String(page.limit), created: new Date(0) }]),
    r
      .get('/notes/{id}', ({ note }) => note)
      .returns(200, Note)
      .returns(404),
    r.post('/notes', ({ newNote }) => [{ id: '2', ...newNote }, 201] as const).uses('newNote'),
    r.get('/search', ({ page }) => page).uses('page'),
    r.delete('/notes/{id}', () => undefined),
  ]);
}

describe('client types', () => {
  // Compiled, never run: the calls below are checked by the type checker (tsc covers test/).
  const calls = () => {
    const api = build();
    const client = createClient<typeof api>({ app: api });
    const one = client.get('/notes/{id}', { params: { id: '1' } });
    type One = Awaited<typeof one>;
    expectTypeOf<Extract<One, { status: 200 }>['data']>().toEqualTypeOf<{
      id: string;
      text: string;
      created: string;
    }>();
    const created = client.post('/notes', { json: { text: 'x' } });
    type Created = Awaited<typeof created>;
    expectTypeOf<Extract<Created, { status: 201 }>['data']>().toEqualTypeOf<{
      id: '2';
      text: string;
      pinned: boolean;
    }>();
    // @ts-expect-error: unknown route
    client.get('/nope');
    // @ts-expect-error: wrong param name
    client.get('/notes/{id}', { params: { ident: '1' } });
    // @ts-expect-error: params are required
    client.get('/notes/{id}');
    // @ts-expect-error: json must match
    client.post('/notes', { json: { text: 1 } });
    client.get('/search', { query: { limit: 3 } });
    const removed = client.delete('/notes/{id}', { params: { id: 1 } });
    type Removed = Awaited<typeof removed>;
    expectTypeOf<Extract<Removed, { status: 204 }>['data']>().toEqualTypeOf<undefined>();
    // Bytes arrive as bytes; a Map or a Set as JSON makes them, an empty object.
    const binary = new RestApplication().withRoutes((r) => [
      r.get('/bytes', () => new Uint8Array([1, 2])),
      r.get('/mapped', () => ({ index: new Map<string, number>(), tags: new Set<string>() })),
    ]);
    const raw = createClient<typeof binary>({ app: binary });
    type Bytes = Awaited<ReturnType<typeof raw.get<'/bytes'>>>;
    expectTypeOf<Extract<Bytes, { status: 200 }>['data']>().toEqualTypeOf<Uint8Array>();
    type Mapped = Awaited<ReturnType<typeof raw.get<'/mapped'>>>;
    expectTypeOf<Extract<Mapped, { status: 200 }>['data']>().toEqualTypeOf<{
      index: Record<string, never>;
      tags: Record<string, never>;
    }>();
    const v1 = new Router().withRoutes((r) => [r.get('/ping', () => 'pong')]);
    const mounted = new RestApplication().mount('/api/v1/', v1);
    const c2 = createClient<typeof mounted>({ app: mounted });
    c2.get('/api/v1/ping');
    type Ping = Awaited<ReturnType<typeof c2.get<'/api/v1/ping'>>>;
    expectTypeOf<Extract<Ping, { status: 200 }>['data']>().toEqualTypeOf<string>();
    // A mounted router's root route is the prefix itself, as served and documented.
    const org = new Router().withRoutes((r) => [r.get('/', () => ({ org: true }))]);
    const orgs = new RestApplication().mount('/orgs/{org}', org);
    const orgClient = createClient<typeof orgs>({ app: orgs });
    orgClient.get('/orgs/{org}', { params: { org: 'acme' } });
    // @ts-expect-error: the path has no trailing slash
    orgClient.get('/orgs/{org}/', { params: { org: 'acme' } });
    // Registering a name between two withRoutes() calls keeps the routes of the first.
    const chained = new RestApplication()
      .withRoutes((r) => [r.get('/a', () => 1)])
      .dependency('db', () => ({ n: 1 }))
      .validates('q', Page, { source: 'queryParams' })
      .resourceExists('found', () => 'x')
      .authorized('user', () => 'u')
      .forbidden('banned', () => false)
      .onStartup('clock', () => 0)
      .withRoutes((r) => [r.get('/b', ({ db }) => db.n)]);
    const c3 = createClient<typeof chained>({ app: chained });
    c3.get('/a');
    c3.get('/b');
    // @ts-expect-error: no such route
    c3.get('/c');
    const nested = new Router()
      .withRoutes((r) => [r.get('/x', () => 'x')])
      .dependency('db', () => 1)
      .authorized('user', () => 'u')
      .forbidden('banned', () => false);
    const m = new RestApplication().mount('/n', nested);
    createClient<typeof m>({ app: m }).get('/n/x');
    // Two validators of one body: the body must satisfy both; one that is a union stays one.
    const both = new RestApplication()
      .validates('identity', z.object({ id: z.string() }))
      .validates('contact', z.object({ email: z.string() }))
      .validates('either', z.union([z.object({ a: z.string() }), z.object({ b: z.enum(['x']) })]), {
        source: 'queryParams',
      })
      .withRoutes((r) => [
        r
          .post('/users', ({ identity, contact }) => ({ identity, contact }))
          .uses('identity', 'contact'),
        r.get('/pick', ({ either }) => either).uses('either'),
      ]);
    const c4 = createClient<typeof both>({ app: both });
    c4.post('/users', { json: { id: 'x', email: 'e' } });
    // @ts-expect-error: the contact validator needs email too
    c4.post('/users', { json: { id: 'x' } });
    c4.get('/pick', { query: { a: 'x' } });
    c4.get('/pick', { query: { b: 'x' } });
    // A headers validator types the names it checks; any other header may still be sent.
    const keyed = new RestApplication()
      .validates('key', z.object({ 'x-api-key': z.string() }), { source: 'headers' })
      .withRoutes((r) => [r.get('/keyed', ({ key }) => key).uses('key')]);
    const c5 = createClient<typeof keyed>({ app: keyed });
    c5.get('/keyed', {
      headers: { 'x-api-key': 'k', authorization: 'Bearer t', accept: 'text/plain' },
    });
    c5.get('/keyed', { headers: { 'x-api-key': 'k', 'if-none-match': '"v1"' } });
    // @ts-expect-error: the validated header is still required
    c5.get('/keyed', { headers: { authorization: 'Bearer t' } });
    // @ts-expect-error: and still a string
    c5.get('/keyed', { headers: { 'x-api-key': 1 } });
    // @ts-expect-error: not undefined, which is not sent
    c5.get('/keyed', { headers: { 'x-api-key': undefined } });
    // Any other header may be undefined: it is not sent.
    c5.get('/keyed', { headers: { 'x-api-key': 'k', authorization: undefined } });
    // A body validator that accepts undefined makes the body optional, in the handler and here.
    const optional = new RestApplication()
      .validates('filters', z.object({ tag: z.string() }).optional())
      .withRoutes((r) => [
        r
          .post('/search', ({ filters }) => {
            expectTypeOf(filters).toEqualTypeOf<{ tag: string } | undefined>();
            return { tag: filters?.tag ?? null };
          })
          .uses('filters'),
      ]);
    const c6 = createClient<typeof optional>({ app: optional });
    c6.post('/search');
    c6.post('/search', { json: { tag: 'a' } });
    // @ts-expect-error: a body that is sent must still match
    c6.post('/search', { json: { tag: 1 } });
    // A body is optional only when its validator's input takes undefined: an object of optional
    // fields is still a body, and a request without one answers 422.
    const bodies = new RestApplication()
      .validates('prefs', z.object({ theme: z.string().optional() }))
      .validates('maybePrefs', z.object({ theme: z.string().optional() }).optional())
      .validates('rename', z.object({ name: z.string() }))
      .validates('signup', z.object({ email: z.string().optional() }), { source: 'formBody' })
      .withRoutes((r) => [
        r.put('/prefs', ({ prefs }) => prefs).uses('prefs'),
        r.patch('/prefs', ({ maybePrefs }) => maybePrefs ?? null).uses('maybePrefs'),
        r.post('/rename', ({ rename }) => rename).uses('rename'),
        r.post('/signup', ({ signup }) => signup).uses('signup'),
      ]);
    const c7 = createClient<typeof bodies>({ app: bodies });
    type PutPrefs = Parameters<typeof c7.put<'/prefs'>>[1];
    expectTypeOf<Pick<PutPrefs, 'json'>>().toEqualTypeOf<{
      json: { theme?: string | undefined };
    }>();
    type PatchPrefs = NonNullable<Parameters<typeof c7.patch<'/prefs'>>[1]>;
    expectTypeOf<Pick<PatchPrefs, 'json'>>().toEqualTypeOf<{
      json?: { theme?: string | undefined } | undefined;
    }>();
    // @ts-expect-error: an object of optional fields is still a body the server requires
    c7.put('/prefs');
    // @ts-expect-error: json is required even with other options
    c7.put('/prefs', { headers: { 'x-trace': '1' } });
    c7.put('/prefs', { json: {} });
    c7.patch('/prefs');
    c7.patch('/prefs', { json: { theme: 'dark' } });
    // @ts-expect-error: required fields, required body
    c7.post('/rename');
    c7.post('/rename', { json: { name: 'x' } });
    // @ts-expect-error: a form validator needs a form: a request without one answers 415
    c7.post('/signup');
    c7.post('/signup', { form: {} });
    // A request has one body: a route typing one takes no other.
    // @ts-expect-error: no json beside the form
    c7.post('/signup', { form: {}, json: { email: 'a' } });
    // @ts-expect-error: no form beside the json
    c7.post('/rename', { json: { name: 'x' }, form: { a: 'b' } });
    // A query arrives as text: each member takes what text can carry to its validator.
    const texts = new RestApplication()
      .validates(
        'filters',
        z.object({
          name: z.string().nullable().optional(),
          scope: z.union([z.literal('all'), z.number()]).optional(),
          limit: z.coerce.number().optional(),
          archived: z.coerce.boolean().optional(),
          tags: z.array(z.string()).optional(),
        }),
        { source: 'queryParams' },
      )
      .withRoutes((r) => [r.get('/texts', ({ filters }) => filters).uses('filters')]);
    const c9 = createClient<typeof texts>({ app: texts });
    expectTypeOf<NonNullable<Parameters<typeof c9.get<'/texts'>>[1]>['query']>().toEqualTypeOf<
      | {
          name?: string | undefined;
          scope?: 'all' | undefined;
          limit?: string | number | undefined;
          archived?: string | number | undefined;
          tags?: readonly string[] | undefined;
        }
      | undefined
    >();
    c9.get('/texts', { query: { name: 'a', scope: 'all', limit: 5, archived: '1', tags: ['x'] } });
    // @ts-expect-error: null would arrive as the text "null", which z.string() accepts
    c9.get('/texts', { query: { name: null } });
    // @ts-expect-error: a number arrives as its digits, which z.number() refuses
    c9.get('/texts', { query: { scope: 5 } });
    // @ts-expect-error: z.coerce.boolean() reads the text "false" as true
    c9.get('/texts', { query: { archived: false } });
    // @ts-expect-error: an object has no text
    c9.get('/texts', { query: { limit: { max: 1 } } });
    // Path parameters and form fields arrive as text too.
    const coerced = new RestApplication()
      .validates('ids', z.object({ id: z.coerce.number() }), { source: 'pathParams' })
      .validates(
        'signup',
        z.object({
          age: z.coerce.number(),
          consent: z.coerce.boolean(),
          note: z.string().optional(),
        }),
        { source: 'formBody' },
      )
      .withRoutes((r) => [
        r.get('/users/{id}', ({ ids }) => ids).uses('ids'),
        r.post('/signup', ({ signup }) => signup).uses('signup'),
      ]);
    const c10 = createClient<typeof coerced>({ app: coerced });
    expectTypeOf<Parameters<typeof c10.get<'/users/{id}'>>[1]['params']>().toEqualTypeOf<{
      id: string | number;
    }>();
    expectTypeOf<Parameters<typeof c10.post<'/signup'>>[1]['form']>().toEqualTypeOf<{
      age: string | number;
      consent: string | number;
      note?: string | undefined;
    }>();
    c10.get('/users/{id}', { params: { id: 7 } });
    // @ts-expect-error: an object has no text ("[object Object]")
    c10.get('/users/{id}', { params: { id: { a: 1 } } });
    c10.post('/signup', { form: { age: 30, consent: 'yes', note: undefined } });
    // @ts-expect-error: z.coerce.boolean() reads the text "false" as true
    c10.post('/signup', { form: { age: 30, consent: false } });
    // JSON carries no Date or Map: a validator of one is given a string or an object.
    const dated = new RestApplication()
      .validates(
        'event',
        z.object({
          at: z.date().optional(),
          on: z.coerce.date(),
          tags: z.map(z.string(), z.string()).optional(),
          when: z.union([z.date(), z.iso.datetime()]),
        }),
      )
      .withRoutes((r) => [r.post('/events', ({ event }) => event.on.getTime()).uses('event')]);
    const c11 = createClient<typeof dated>({ app: dated });
    expectTypeOf<Parameters<typeof c11.post<'/events'>>[1]['json']>().toEqualTypeOf<{
      at?: undefined;
      on: unknown;
      tags?: undefined;
      when: string;
    }>();
    const [epoch, when] = [new Date(0), '1970-01-01T00:00:00Z'];
    c11.post('/events', { json: { on: when, when } });
    // @ts-expect-error: a Date is sent as a string, which z.date() refuses
    c11.post('/events', { json: { at: epoch, on: when, when } });
    // @ts-expect-error: a Map is sent as {}
    c11.post('/events', { json: { on: when, tags: new Map(), when } });
    // @ts-expect-error: as z.union([z.date(), ...]) takes only its text member
    c11.post('/events', { json: { on: when, when: epoch } });
    // GET and HEAD carry no body: fetch refuses one (and RFC 9110 §9.3.1 gives it no meaning).
    const reads = new RestApplication()
      .validates('filters', z.object({ tag: z.string() }).optional())
      .withRoutes((r) => [
        r.get('/filtered', ({ filters }) => filters ?? null).uses('filters'),
        r.get('/plain', () => 'x'),
      ]);
    const c8 = createClient<typeof reads>({ app: reads });
    c8.get('/filtered');
    // @ts-expect-error: no json on GET, even for a route with a body validator
    c8.get('/filtered', { json: { tag: 'a' } });
    // @ts-expect-error: nor on a route without one
    c8.get('/plain', { json: 1 });
    // @ts-expect-error: nor a form
    c8.get('/plain', { form: { a: 'b' } });
  };

  it('are checked by the type checker', () => {
    expectTypeOf(calls).toBeFunction();
  });
});
