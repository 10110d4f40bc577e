/**
 * Compression on the buffered Lambda handler: the compressed bytes travel base64-encoded
 * (`isBase64Encoded: true`) with the compressed Content-Length, as API Gateway and Function URLs
 * need for any binary body.
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CloudGatewayAdapter } from '../../../src/adapters/aws/index.js';
import { RestApplication, silentLogger } from '../../../src/index.js';
import { restEvent, v2Event } from '../../adapters/aws/fixtures.js';

const DOCUMENT = { values: Array.from({ length: 400 }, (_, i) => i) };

describe('compress() on the buffered Lambda handler', () => {
  const app = new RestApplication({ logger: silentLogger }).compress();
  app.get('/document', () => DOCUMENT);
  const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });

  it('payload 2.0: base64 body, Content-Encoding and the compressed length', async () => {
    const result = await adapter.handleEvent(
      v2Event({ method: 'GET', path: '/document', headers: { 'accept-encoding': 'gzip' } }),
    );
    expect(result.isBase64Encoded).toBe(true);
    const headers = result.headers as Record<string, string>;
    expect(headers['Content-Encoding']).toBe('gzip');
    const bytes = Buffer.from(result.body as string, 'base64');
    expect(headers['Content-Length']).toBe(String(bytes.length));
    expect(JSON.parse(gunzipSync(bytes).toString())).toEqual(DOCUMENT);
  });

  it('payload 1.0 without Accept-Encoding: the JSON as text', async () => {
    const result = await adapter.handleEvent(restEvent({ method: 'GET', path: '/document' }));
    expect(result.isBase64Encoded).toBe(false);
    expect(JSON.parse(result.body)).toEqual(DOCUMENT);
  });
});
