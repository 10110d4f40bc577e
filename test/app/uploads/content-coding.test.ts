/**
 * An upload sent in a content coding is refused before its parts are read, as any body the
 * parsers would read (docs/application.md, "Request bodies"; RFC 9110 §15.5.16).
 */
import { describe, expect, it } from 'vitest';
import { RestApplication, silentLogger } from '../../../src/index.js';

const BOUNDARY = 'x-boundary';
const BODY = [
  `--${BOUNDARY}`,
  'Content-Disposition: form-data; name="note"; filename="a.txt"',
  'Content-Type: text/plain',
  '',
  'hello',
  `--${BOUNDARY}--`,
  '',
].join('\r\n');

function upload(headers: Record<string, string>) {
  const app = new RestApplication({ logger: silentLogger });
  app.post('/files', ({ files }) => ({ count: files.length }));
  app.post('/fields', ({ formBody }) => formBody);
  return (path: string) =>
    app.request(path, {
      method: 'POST',
      headers: { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, ...headers },
      body: BODY,
    });
}

describe('an upload in a content coding', () => {
  it('is 415 with Accept-Encoding: identity for files and formBody', async () => {
    const send = upload({ 'Content-Encoding': 'gzip' });
    for (const path of ['/files', '/fields']) {
      const response = await send(path);
      expect(response.statusCode).toBe(415);
      expect(response.headers.get('accept-encoding')).toBe('identity');
    }
  });

  it('is read as usual with none, or identity', async () => {
    for (const headers of [{}, { 'Content-Encoding': 'identity' }] as Record<string, string>[]) {
      const response = await upload(headers)('/files');
      expect(response.statusCode).toBe(200);
      expect(JSON.parse(response.body as string)).toEqual({ count: 1 });
    }
  });
});
