/**
 * Type tests: the names registration refuses at run time (`NAME_CLASH`) are compile errors at
 * the call, with the reason as the expected type, rather than a type that compiles and then
 * throws when the module loads.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import type { RegistrableName } from '../../src/app/types.js';
import { RestApplication, Router, silentLogger } from '../../src/index.js';

describe('registered names', () => {
  it('refuses a built-in name in every registration call', () => {
    const app = new RestApplication({ logger: silentLogger });
    const router = new Router();
    const calls = [
      // @ts-expect-error: "body" is a built-in name: register it under another name
      () => app.validates('body', z.object({ text: z.string() })),
      // @ts-expect-error: "headers" is a built-in name
      () => app.validates('headers', z.object({ 'x-a': z.string() }), { source: 'headers' }),
      // @ts-expect-error: "log" is a built-in name
      () => app.dependency('log', () => 42),
      // @ts-expect-error: "request" is a built-in name
      () => app.resourceExists('request', () => ({})),
      // @ts-expect-error: "cookies" is a built-in name
      () => app.authorized('cookies', () => true),
      // @ts-expect-error: "error" is a built-in name (error handlers get it)
      () => app.forbidden('error', () => false),
      // @ts-expect-error: "elapsedMs" is a built-in name (onResponse hooks get it)
      () => app.onStartup('elapsedMs', () => 1),
      // @ts-expect-error: "signal" is a built-in name
      () => router.dependency('signal', () => 1),
      // @ts-expect-error: "metrics" is a built-in name
      () => router.authorized('metrics', () => true),
      // @ts-expect-error: "result" is a built-in name (renderers get it)
      () => router.forbidden('result', () => false),
    ];
    // Each throws NAME_CLASH at run time, as the types say.
    for (const call of calls) {
      expect(call).toThrow(expect.objectContaining({ code: 'NAME_CLASH' }));
    }
  });

  it('refuses __proto__ and then, which an injection object cannot hold', () => {
    const app = new RestApplication({ logger: silentLogger });
    // @ts-expect-error: "__proto__" cannot be registered: it is not a name an object can hold
    expect(() => app.dependency('__proto__', () => 1)).toThrow(/__proto__/);
    // @ts-expect-error: "then" cannot be registered: it would be taken for a promise
    expect(() => app.validates('then', () => 1)).toThrow(/then/);
  });

  it('takes any other name, and leaves a name only known as string to run time', () => {
    const app = new RestApplication({ logger: silentLogger })
      .dependency('logger', () => 42)
      .validates('payload', z.object({ text: z.string() }))
      .onStartup('bodyParser', () => 'ready');
    app.get('/', ({ logger, payload, bodyParser }) => {
      expectTypeOf(logger).toEqualTypeOf<number>();
      expectTypeOf(payload).toEqualTypeOf<{ text: string }>();
      expectTypeOf(bodyParser).toEqualTypeOf<string>();
      return null;
    });
    const name: string = 'dynamic';
    expect(() => app.dependency(name, () => 1)).not.toThrow();
    expectTypeOf<RegistrableName<'user'>>().toEqualTypeOf<'user'>();
    expectTypeOf<
      RegistrableName<'log'>
    >().toEqualTypeOf<'"log" is a built-in name: register it under another name'>();
  });
});
