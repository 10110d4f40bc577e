/**
 * Request bodies of uploads (docs/uploads.md) and of `accepts()` parsers in the document, and
 * the document of such an application against the official OpenAPI 3.1 schema.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { RestApplication, silentLogger } from '../../src/index.js';
import { openapi } from '../../src/openapi/index.js';

const info = { title: 'Uploads', version: '1' };

function application(): RestApplication {
  const app = new RestApplication({ logger: silentLogger })
    .validates('photo', z.object({ caption: z.string().max(100) }), { source: 'formBody' })
    .accepts('text/csv', ({ body }: { body: string }) => body.split('\n'));
  app.post('/photos', ({ photo, files }) => ({ caption: photo.caption, count: files.length }));
  app.post('/archives', ({ parts }) => (parts ? 'streamed' : 'none'));
  app.post('/rows', ({ parsedBody }) => parsedBody);
  return app;
}

describe('request bodies', () => {
  it('describes a multipart upload: the validated text fields and, beside them, files', () => {
    const body = openapi(application(), { info }).paths['/photos']?.post?.requestBody;
    const multipart = body?.content['multipart/form-data']?.schema as {
      allOf: [{ $ref?: string; type?: string }, { additionalProperties: unknown }];
    };
    expect(multipart.allOf[0]).toEqual(body?.content['application/x-www-form-urlencoded']?.schema);
    expect(multipart.allOf[1].additionalProperties).toEqual({
      type: 'string',
      contentMediaType: 'application/octet-stream',
    });
  });

  it('lets files sit beside the text fields of a strict validator, as the server does', async () => {
    const app = new RestApplication({ logger: silentLogger })
      .validates('album', z.strictObject({ title: z.string().min(1) }), { source: 'formBody' })
      .validates('loose', z.object({ title: z.string() }), { source: 'formBody' });
    app.post('/albums', ({ album, files }) => ({ title: album.title, count: files.length }));
    app.post('/notes', ({ loose, files }) => ({ title: loose.title, count: files.length }));
    const document = openapi(app, { info });
    // Every schema of the document, its components under one id, as a JSON Schema 2020-12 tool
    // reads an OpenAPI 3.1 document.
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'doc', components: document.components }, 'doc');
    const multipart = (path: string) => {
      const schema = document.paths[path]?.post?.requestBody?.content['multipart/form-data'];
      return ajv.compile(
        JSON.parse(JSON.stringify(schema?.schema).replaceAll('#/components', 'doc#/components')),
      );
    };
    // One object: the validator's fields, and any other field a file.
    expect(document.paths['/albums']?.post?.requestBody?.content['multipart/form-data']).toEqual({
      schema: {
        type: 'object',
        properties: { title: { type: 'string', minLength: 1 } },
        required: ['title'],
        additionalProperties: { type: 'string', contentMediaType: 'application/octet-stream' },
      },
    });
    const albums = multipart('/albums');
    expect(albums({ title: 'Trip', photo: 'PNG' }), JSON.stringify(albums.errors)).toBe(true);
    expect(albums({ photo: 'PNG' })).toBe(false);
    expect(albums({ title: '' })).toBe(false);
    // A validator that lets other fields through keeps its component by reference.
    const notes = multipart('/notes');
    expect(notes({ title: 'Trip', photo: 'PNG' })).toBe(true);
    expect(JSON.stringify(document.paths['/notes']?.post?.requestBody)).toContain(
      '#/components/schemas/loose',
    );
    // What the server does with the same request.
    const form = new FormData();
    form.append('title', 'Trip');
    form.append('photo', new Blob(['PNG']), 'photo.png');
    const response = await app.request('/albums', { method: 'POST', body: form });
    expect(String(response.body)).toBe('{"title":"Trip","count":1}');
  });

  it('describes a route reading files alone as an urlencoded form too, which has no files', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.post('/attachments', ({ files }) => ({ count: files.length }));
    const content = openapi(app, { info }).paths['/attachments']?.post?.requestBody?.content;
    expect(Object.keys(content ?? {})).toEqual([
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    ]);
    // As documented: the server takes it, with `files` empty.
    const response = await app.request('/attachments', {
      method: 'POST',
      body: new URLSearchParams({ note: 'x' }),
    });
    expect(String(response.body)).toBe('{"count":0}');
  });

  it('describes a streamed upload as files only, and a parser by its media type', () => {
    const document = openapi(application(), { info });
    expect(Object.keys(document.paths['/archives']?.post?.requestBody?.content ?? {})).toEqual([
      'multipart/form-data',
    ]);
    expect(Object.keys(document.paths['/rows']?.post?.requestBody?.content ?? {})).toEqual([
      'text/csv',
    ]);
    expect(Object.keys(document.paths['/photos']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['413', '415', '422']),
    );
  });

  it('validates against the official OpenAPI 3.1 schema', async () => {
    const result = await new Validator().validate(
      JSON.parse(JSON.stringify(openapi(application(), { info }))),
    );
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });
});
