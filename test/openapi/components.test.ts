/**
 * Schemas named with zod's `meta({ id })`: one component per schema, shared by every route and
 * schema that holds it; a number only where different schemas claim the same id.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { RestApplication, silentLogger } from '../../src/index.js';
import { openapi } from '../../src/openapi/index.js';

const info = { title: 't', version: '1' };

describe('components named by meta({ id })', () => {
  it('are one component for every schema that holds them', async () => {
    const Item = z.object({ id: z.string(), name: z.string() }).meta({ id: 'Item' });
    const app = new RestApplication({ logger: silentLogger });
    app.get('/items', () => []).returns(200, z.array(Item));
    app.get('/items/{id}', () => ({})).returns(200, z.object({ item: Item }));
    app.get('/featured', () => ({})).returns(200, z.object({ first: Item, second: Item }));
    const doc = openapi(app, { info });
    // `Error` is the built-in error body (the 400 of `{id}`).
    expect(Object.keys(doc.components?.schemas ?? {})).toEqual(['Item', 'Error']);
    const json = JSON.stringify(doc);
    expect(json).not.toMatch(/Item2/);
    expect(json.match(/"#\/components\/schemas\/Item"/g)).toHaveLength(4);
    expect((await new Validator().validate(JSON.parse(json))).valid).toBe(true);
  });

  it('are numbered only when different schemas claim one id, each shared in turn', () => {
    const Item = z.object({ id: z.string() }).meta({ id: 'Item' });
    const OtherItem = z.object({ sku: z.number() }).meta({ id: 'Item' });
    const app = new RestApplication({ logger: silentLogger });
    app.get('/a', () => ({})).returns(200, z.object({ item: Item }));
    app.get('/b', () => ({})).returns(200, z.object({ item: OtherItem }));
    app.get('/c', () => ({})).returns(200, z.array(OtherItem));
    app.get('/d', () => ({})).returns(200, z.array(Item));
    // An equal schema built apart is the same component.
    app
      .get('/e', () => ({}))
      .returns(200, z.array(z.object({ sku: z.number() }).meta({ id: 'Item' })));
    const doc = openapi(app, { info });
    expect(doc.components?.schemas).toEqual({
      Item: expect.objectContaining({ properties: { id: { type: 'string' } } }),
      Item2: expect.objectContaining({ properties: { sku: { type: 'number' } } }),
    });
    const schemaOf = (path: string) => JSON.stringify(doc.paths[path]?.get?.responses['200']);
    expect(schemaOf('/a')).toContain('schemas/Item"');
    expect(schemaOf('/b')).toContain('schemas/Item2"');
    expect(schemaOf('/c')).toContain('schemas/Item2"');
    expect(schemaOf('/d')).toContain('schemas/Item"');
    expect(schemaOf('/e')).toContain('schemas/Item2"');
  });

  it('never take the name of a validator or the error body', () => {
    const Named = z.object({ label: z.string() }).meta({ id: 'Error' });
    const app = new RestApplication({ logger: silentLogger }).validates(
      'Tag',
      z.object({ tag: z.string() }),
    );
    app.post('/tags', ({ Tag }) => Tag).returns(200, z.object({ tag: Named }));
    app.get('/tags', () => ({})).returns(200, z.object({ a: z.string() }).meta({ id: 'Tag' }));
    const doc = openapi(app, { info });
    expect(Object.keys(doc.components?.schemas ?? {}).sort()).toEqual([
      'Error',
      'Error2',
      'Tag',
      'Tag2',
    ]);
    expect(doc.components?.schemas?.Tag).toMatchObject({ properties: { tag: { type: 'string' } } });
    expect(doc.components?.schemas?.Error2).toMatchObject({
      properties: { label: { type: 'string' } },
    });
  });

  it('may have ids with % in them, which are names, not percent-encoding', async () => {
    const Share = z.object({ pct: z.number() }).meta({ id: '100%' });
    const Rate = z.object({ rate: z.number() }).meta({ id: '50%25' });
    const app = new RestApplication({ logger: silentLogger });
    app.get('/x', () => ({})).returns(200, z.object({ s: Share, t: Share, r: Rate }));
    const doc = openapi(app, { info });
    expect(Object.keys(doc.components?.schemas ?? {})).toEqual(['100_', '50_25']);
    expect(doc.paths['/x']?.get?.responses['200']).toMatchObject({
      content: {
        'application/json': {
          schema: {
            properties: {
              s: { $ref: '#/components/schemas/100_' },
              r: { $ref: '#/components/schemas/50_25' },
            },
          },
        },
      },
    });
    expect((await new Validator().validate(JSON.parse(JSON.stringify(doc)))).valid).toBe(true);
  });
});
