/**
 * The document's top-level tags, and the precondition headers of routes with ETag or
 * Last-Modified providers (RFC 9110 §13.1).
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { RestApplication, silentLogger } from '../../src/index.js';
import { openapi } from '../../src/openapi/index.js';

const info = { title: 'T', version: '1' };

describe('tags', () => {
  it('lists every tag the operations name: described ones first, then in order of use', () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/a', () => 1).describe({ tags: ['beta', 'alpha'] });
    app.get('/b', () => 1).describe({ tags: ['alpha', 'gamma'] });
    app.get('/c', () => 1).describe({ tags: ['secret'], hidden: true });
    const document = openapi(app, { info, tags: [{ name: 'gamma', description: 'Third' }] });
    expect(document.tags).toEqual([
      { name: 'gamma', description: 'Third' },
      { name: 'beta' },
      { name: 'alpha' },
    ]);
  });

  it('has no tags field when no route names one', () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/a', () => 1);
    expect(openapi(app, { info })).not.toHaveProperty('tags');
  });
});

describe('precondition headers', () => {
  function names(app: RestApplication, path: string, method: 'get' | 'put') {
    const operation = openapi(app, { info }).paths[path]?.[method];
    return operation?.parameters?.filter((p) => p.in === 'header').map((p) => p.name);
  }

  it('If-Match and If-None-Match with an ETag provider; the dates with Last-Modified', () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/e', () => 1).etag(() => 'v1');
    app.put('/e', () => 1).etag(() => 'v1');
    app.get('/d', () => 1).lastModified(() => new Date(0));
    app.put('/d', () => 1).lastModified(() => new Date(0));
    app
      .get('/both', () => 1)
      .etag(() => 'v1')
      .lastModified(() => new Date(0));
    app.get('/none', () => 1);
    expect(names(app, '/e', 'get')).toEqual(['If-Match', 'If-None-Match']);
    expect(names(app, '/e', 'put')).toEqual(['If-Match', 'If-None-Match']);
    expect(names(app, '/d', 'get')).toEqual(['If-Unmodified-Since', 'If-Modified-Since']);
    // RFC 9110 §13.1.3: If-Modified-Since is for GET and HEAD only.
    expect(names(app, '/d', 'put')).toEqual(['If-Unmodified-Since']);
    expect(names(app, '/both', 'get')).toEqual([
      'If-Match',
      'If-None-Match',
      'If-Unmodified-Since',
      'If-Modified-Since',
    ]);
    expect(names(app, '/none', 'get')).toBeUndefined();
    const parameter = openapi(app, { info }).paths['/e']?.get?.parameters?.[1];
    expect(parameter).toMatchObject({ in: 'header', required: false, schema: { type: 'string' } });
    expect(parameter?.description).toMatch(/304/);
  });

  it('a header validator that already documents If-Match keeps its own', () => {
    const app = new RestApplication({ logger: silentLogger }).validates(
      'conditions',
      z.object({ 'if-match': z.string() }),
      { source: 'headers' },
    );
    app.put('/e', ({ conditions }) => conditions).etag(() => 'v1');
    const parameters = openapi(app, { info }).paths['/e']?.put?.parameters ?? [];
    expect(parameters.filter((p) => p.name.toLowerCase() === 'if-match')).toEqual([
      { name: 'if-match', in: 'header', required: true, schema: { type: 'string' } },
    ]);
    expect(parameters.map((p) => p.name)).toContain('If-None-Match');
  });
});
