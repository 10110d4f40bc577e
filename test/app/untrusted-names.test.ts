/**
 * Maps the application builds from a request are data only: form fields, path parameters after
 * routing, and the header map a validator sees. Names such as `__proto__`, `constructor` or
 * `toString` are entries when the client sent them and absent otherwise.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RestApplication, silentLogger } from '../../src/index.js';
import { expectDataOnly, PROTOTYPE_NAMES, untrustedName } from '../http/untrusted.js';

const fields = fc.uniqueArray(fc.tuple(untrustedName, fc.string({ maxLength: 6 })), {
  selector: ([name]) => name,
  maxLength: 6,
});

describe('maps built from a request', () => {
  it('formBody holds the fields sent and nothing inherited (property)', async () => {
    const app = new RestApplication({ logger: silentLogger });
    let seen: Record<string, unknown> = {};
    app.post('/form', ({ formBody }) => {
      seen = formBody;
      return null;
    });
    await fc.assert(
      fc.asyncProperty(fields, async (pairs) => {
        const body = new URLSearchParams(pairs).toString();
        const response = await app.request('/form', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body,
        });
        expect(response.statusCode).toBe(204);
        expectDataOnly(seen, new Map(pairs));
      }),
      { numRuns: 60 },
    );
  });

  it('pathParams after routing inherit nothing', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/items/{id}', ({ pathParams }) => ({
      keys: Object.keys(pathParams),
      inherited: PROTOTYPE_NAMES.filter(
        (name) => (pathParams as Record<string, string>)[name] !== undefined,
      ),
    }));
    const response = await app.request('/items/7');
    expect(JSON.parse(response.body as string)).toEqual({ keys: ['id'], inherited: [] });
  });

  it('a headers validator sees a header named like a prototype member', async () => {
    const headersSchema = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: (value: unknown) => ({ value: value as Record<string, string> }),
      },
    };
    const app = new RestApplication({ logger: silentLogger }).validates('sent', headersSchema, {
      source: 'headers',
    });
    app.get('/h', ({ sent }) => {
      const headers = sent as Record<string, string>;
      return { constructor: headers.constructor, toString: headers.tostring };
    });
    const response = await app.request('/h', { headers: [['constructor', 'c']] });
    expect(JSON.parse(response.body as string)).toEqual({ constructor: 'c' });
  });
});

describe('media type parameters chosen by the client', () => {
  const TYPES = ['application/json', 'text/plain', 'text/html', '*/*', 'text/*'];
  const accept = fc
    .array(
      fc.tuple(
        fc.constantFrom(...TYPES),
        fc.array(fc.tuple(untrustedName, fc.stringMatching(/^[a-z0-9]{0,4}$/)), { maxLength: 3 }),
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map((ranges) =>
      ranges
        .map(([type, params]) => [type, ...params.map(([k, v]) => `${k}=${v}`)].join(';'))
        .join(', '),
    );

  it('are matched against the parameters a type has: 200 or 406, never an error (property)', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/doc', () => ({ hello: 'world' }));
    app.post('/doc', () => ({ hello: 'world' }));
    await fc.assert(
      fc.asyncProperty(accept, fc.constantFrom('GET', 'POST', 'HEAD'), async (value, method) => {
        const response = await app.request('/doc', { method, headers: { accept: value } });
        expect([200, 406]).toContain(response.statusCode);
      }),
      { numRuns: 200 },
    );
  });

  it('a parameter named like a prototype member does not match a type without it', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/doc', () => ({ hello: 'world' }));
    for (const name of ['constructor', '__proto__', 'toString']) {
      const response = await app.request('/doc', {
        headers: { accept: `application/json; ${name}=x` },
      });
      expect(response.statusCode, name).toBe(406);
    }
  });
});

describe('names an injection object cannot hold', () => {
  it('refuses __proto__ as a dependency, startup result or path parameter', () => {
    const app = new RestApplication({ logger: silentLogger });
    expect(() => app.dependency('__proto__' as string, () => 'value')).toThrow(
      expect.objectContaining({ code: 'NAME_CLASH' }),
    );
    expect(() => app.onStartup('__proto__' as string, () => 'value')).toThrow(
      expect.objectContaining({ code: 'NAME_CLASH' }),
    );
    expect(() => app.get('/p/{__proto__}', () => 'x')).toThrow(
      expect.objectContaining({ code: 'NAME_CLASH' }),
    );
  });

  it('refuses then, which would make the injection object a promise, however it is registered', async () => {
    const app = new RestApplication({ logger: silentLogger });
    const refusal = expect.objectContaining({
      code: 'NAME_CLASH',
      message: expect.stringMatching(/"then" cannot be registered.*promise/),
    });
    expect(() => app.dependency('then', () => () => 'hijacked')).toThrow(refusal);
    expect(() => app.validates('then', () => () => 'hijacked')).toThrow(refusal);
    expect(() => app.onStartup('then', () => () => 'hijacked')).toThrow(refusal);
    expect(() => app.authorized('then', () => true)).toThrow(refusal);
    // A path parameter is a string, never a method: `{then}` is a name like any other.
    app.get('/p/{then}', ({ then }) => ({ then }));
    expect((await app.request('/p/x')).body).toBe('{"then":"x"}');
  });

  it('says an anonymous dependency needs a name, and takes Unicode identifiers', async () => {
    const app = new RestApplication({ logger: silentLogger });
    expect(() => app.dependency(() => 1)).toThrow(/A dependency needs a name/);
    const named = app.dependency('prénom', () => 'Zoë');
    named.get('/who', ({ prénom }) => ({ prénom }));
    expect((await named.request('/who')).body).toBe('{"prénom":"Zoë"}');
  });
});
