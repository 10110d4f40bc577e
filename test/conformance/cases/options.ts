/**
 * Application options through every driver: `renderers: 'json'`, `etag: 'auto'` and per-route
 * `bodyLimit()` (docs/application.md, docs/http-semantics.md "Automatic ETags").
 */
import { expect } from 'vitest';
import { RestApplication, silentLogger } from '../../../src/index.js';
import type { CasesModule } from '../suite.js';
import { conformanceTest, get } from './helpers.js';

function buildApp() {
  const app = new RestApplication({
    logger: silentLogger,
    renderers: 'json',
    etag: 'auto',
    bodyLimit: 16,
  });
  app.get('/options/greeting', () => 'hi');
  app.get('/options/countries', () => [{ code: 'FR' }, { code: 'JP' }]);
  app.post('/options/small', ({ body }) => ({ length: body.length }));
  app.post('/options/upload', ({ body }) => ({ length: body.length })).bodyLimit(1000);
  return app;
}

export const optionsCases: CasesModule = {
  title: 'application options',
  app: buildApp,
  cases(context) {
    conformanceTest(
      context,
      'renderers json: a string is a JSON string, without Vary',
      async (send) => {
        const response = await send(get('/options/greeting', { accept: 'text/plain, */*' }));
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/json');
        expect(response.headers.get('vary')).toBeUndefined();
        expect(response.text()).toBe('"hi"');
      },
    );

    conformanceTest(
      context,
      'renderers json: errors are JSON for a text-only client',
      async (send) => {
        const response = await send(get('/options/nowhere', { accept: 'text/plain' }));
        expect(response.status).toBe(404);
        expect(response.headers.get('content-type')).toBe('application/json');
        expect(response.json()).toMatchObject({ statusCode: 404, path: '/options/nowhere' });
        expect(response.headers.get('vary')).toBeUndefined();
      },
    );

    conformanceTest(context, 'etag auto: a repeat GET with If-None-Match is 304', async (send) => {
      const first = await send(get('/options/countries'));
      const etag = first.headers.get('etag') as string;
      expect(etag).toMatch(/^W\/"/);
      const again = await send(get('/options/countries', { 'if-none-match': etag }));
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect(again.body.length).toBe(0);
    });

    conformanceTest(context, "a route's bodyLimit replaces the application's", async (send) => {
      const body = 'x'.repeat(100);
      const headers = { 'content-type': 'text/plain' };
      const small = await send({ method: 'POST', path: '/options/small', headers, body });
      expect(small.status).toBe(413);
      const upload = await send({ method: 'POST', path: '/options/upload', headers, body });
      expect(upload.status).toBe(200);
      expect(upload.json()).toEqual({ length: 100 });
    });
  },
};
