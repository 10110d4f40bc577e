/**
 * Type tests: values of the Fetch API a handler may return (docs/application.md, "Handler
 * results") compile, as the Response, Blob and bytes they are sent as; what JSON cannot represent
 * still does not. `npm run typecheck` fails if an `@ts-expect-error` below stops being an error.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type Representable, RestApplication, silentLogger } from '../../src/index.js';

describe('handler result types for Fetch API values', () => {
  it('accept a WHATWG Response, a Blob and any ArrayBuffer view', () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/proxy', () => fetch('http://upstream.invalid/data'));
    app.get('/built', () => new globalThis.Response('created', { status: 201 }));
    app.get('/blob', async () => (await fetch('http://upstream.invalid/image')).blob());
    app.get('/made-blob', () => new Blob(['hello'], { type: 'text/plain' }));
    app.get('/data-view', () => new DataView(new ArrayBuffer(2)));
    app.get('/int16', () => new Int16Array([1, 2]));
    app.get('/float32', async () => new Float32Array(4));
    app.post('/blob-tuple', () => [new Blob(['{}']), 201, { 'Content-Type': 'application/json' }]);
    app.get('/sometimes', ({ headers }) =>
      headers.has('x') ? fetch('http://upstream.invalid/data') : { cached: true },
    );
    expect(app.routes).toHaveLength(9);
  });

  it('still refuses what JSON cannot represent beside them', () => {
    const app = new RestApplication({ logger: silentLogger });
    // @ts-expect-error: a Map beside a Blob is still a Map.
    app.get('/map-or-blob', ({ headers }) => (headers.has('x') ? new Blob([]) : new Map()));
    expect(app.routes).toHaveLength(1);
  });

  it('leaves them unconstrained', () => {
    expectTypeOf<Representable<Promise<globalThis.Response>>>().toEqualTypeOf<unknown>();
    expectTypeOf<Representable<Blob>>().toEqualTypeOf<unknown>();
    expectTypeOf<Representable<DataView>>().toEqualTypeOf<unknown>();
    expectTypeOf<Representable<[Int16Array, 200]>>().toEqualTypeOf<unknown>();
  });
});
