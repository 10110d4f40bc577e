/**
 * Request bodies of uploads (docs/uploads.md) and of `accepts()` parsers in the document, and
 * the document of such an application against the official OpenAPI 3.1 schema.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
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
