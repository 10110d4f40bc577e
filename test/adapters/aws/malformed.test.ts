/**
 * Bad input: bodies that are not the base64 they claim (400, no handler runs), events of no
 * known shape or missing what their shape needs (a clear thrown error, never a TypeError from
 * deep inside), and property checks of the parsing that guards the router.
 */
import { Buffer } from 'node:buffer';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEventBody } from '../../../src/adapters/aws/body.js';
import { CloudGatewayAdapter, GatewayEventError } from '../../../src/adapters/aws/index.js';
import { encodeDecodedPath, sanitizeEncodedPath } from '../../../src/adapters/aws/path.js';
import { HttpError, RestApplication, silentLogger } from '../../../src/index.js';
import {
  albEvent,
  lambdaContext,
  readAlbResult,
  readV1Result,
  readV2Result,
  restEvent,
  v2Event,
} from './fixtures.js';

function countingApp() {
  const calls = { count: 0 };
  const app = new RestApplication({ logger: silentLogger });
  app.post('/upload', async ({ request }) => {
    calls.count += 1;
    return { size: (await request.bytes()).length };
  });
  return { app, calls };
}

const BAD_BASE64 = [
  'not base64!',
  'QUJD=RA==',
  'QUJ',
  'QU JD',
  'QUJD\n',
  '====',
  'QUJDRA=',
  'QUJDRA===',
];

describe('a body marked base64 that is not', () => {
  it('answers 400 with the error body in every integration, and no handler runs', async () => {
    const { app, calls } = countingApp();
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    for (const bad of BAD_BASE64) {
      const request = {
        method: 'POST',
        path: '/upload',
        headers: { 'content-type': 'application/octet-stream' },
      };
      const rest = restEvent(request);
      rest.body = bad;
      rest.isBase64Encoded = true;
      const v2 = v2Event(request);
      v2.body = bad;
      v2.isBase64Encoded = true;
      const alb = albEvent(request, { multiValue: true });
      alb.body = bad;
      alb.isBase64Encoded = true;
      const responses = [
        readV1Result(await adapter.handleEvent(rest, lambdaContext())),
        readV2Result(await adapter.handleEvent(v2, lambdaContext())),
        readAlbResult(await adapter.handleEvent(alb, lambdaContext()), true),
      ];
      for (const response of responses) {
        expect(response.status).toBe(400);
        const body = JSON.parse(new TextDecoder().decode(response.body));
        expect(body).toMatchObject({ statusCode: 400, path: '/upload' });
        expect(body.error).toMatch(/base64/);
        expect(response.headers.get('content-type')).toBe('application/json');
      }
    }
    expect(calls.count).toBe(0);
    const good = restEvent({ method: 'POST', path: '/upload', body: new Uint8Array([1, 2, 3]) });
    expect(JSON.parse((await adapter.handleEvent(good)).body)).toEqual({ size: 3 });
  });

  it("goes through the application's error path: its error handler and CORS headers apply", async () => {
    const { app, calls } = countingApp();
    app.cors({ origin: 'https://app.example' });
    app.errorHandler(400, ({ error }) => [{ refused: error.message }, 400]);
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    const event = v2Event({
      method: 'POST',
      path: '/upload',
      headers: { 'content-type': 'application/octet-stream', origin: 'https://app.example' },
    });
    event.body = 'not base64!';
    event.isBase64Encoded = true;
    const response = readV2Result(await adapter.handleEvent(event, lambdaContext()));
    expect(response.status).toBe(400);
    const body = JSON.parse(new TextDecoder().decode(response.body));
    expect(body.refused).toMatch(/base64/);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(response.headers.get('x-request-id')).toMatch(/./);
    expect(calls.count).toBe(0);
  });

  it('makes convertToRequest throw a 400 HttpError', () => {
    const adapter = new CloudGatewayAdapter(countingApp().app, { metricsPublisher: null });
    const event = v2Event({ method: 'POST', path: '/upload' });
    event.body = '%%%';
    event.isBase64Encoded = true;
    expect(() => adapter.convertToRequest(event)).toThrow(HttpError);
  });

  it('accepts exactly the canonical base64 of some bytes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const encoded = Buffer.from(bytes).toString('base64');
        const decoded = decodeEventBody(encoded, true);
        expect(Array.from((decoded as Uint8Array | undefined) ?? [])).toEqual(Array.from(bytes));
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 24 }), (text) => {
        let decoded: string | Uint8Array | undefined;
        try {
          decoded = decodeEventBody(text, true);
        } catch (error) {
          expect(error).toBeInstanceOf(HttpError);
          expect((error as HttpError).statusCode).toBe(400);
          return;
        }
        // Whatever was accepted re-encodes to exactly the text that came.
        expect(Buffer.from((decoded as Uint8Array | undefined) ?? []).toString('base64')).toBe(
          text,
        );
      }),
    );
  });
});

describe('an event of an unknown shape', () => {
  const adapter = new CloudGatewayAdapter(new RestApplication({ logger: silentLogger }), {
    metricsPublisher: null,
  });
  const unknown: Array<[string, unknown]> = [
    ['null', null],
    ['a string', 'GET /'],
    ['an array', [{ httpMethod: 'GET' }]],
    ['an empty object', {}],
    [
      'an SQS batch',
      {
        Records: [
          { messageId: '059f36b4-87a3-44ab-83d2-661975830a7d', eventSource: 'aws:sqs', body: 'hi' },
        ],
      },
    ],
    [
      'a WebSocket message',
      {
        requestContext: {
          routeKey: '$default',
          eventType: 'MESSAGE',
          connectionId: 'L0SM9cOFvHcCIhw=',
        },
        body: '{}',
        isBase64Encoded: false,
      },
    ],
    ['a payload 3.0 event', { version: '3.0', rawPath: '/' }],
  ];

  it.each(unknown)(
    'is rejected with an error naming what was expected: %s',
    async (_name, event) => {
      const error = await adapter.handleEvent(event as never).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(GatewayEventError);
      expect((error as GatewayEventError).code).toBe('UNKNOWN_EVENT');
      expect((error as Error).message).toMatch(
        /expected an API Gateway REST or HTTP API payload 1\.0 event/,
      );
      expect((error as Error).message).toMatch(/requestContext\.elb/);
      expect(() => adapter.convertToRequest(event as never)).toThrow(GatewayEventError);
    },
  );

  it('names the field a known kind lacks', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ httpMethod: 'GET', requestContext: {} }, /REST.*"path"/],
      [
        { version: '2.0', rawPath: '/x', requestContext: {} },
        /payload 2\.0.*"requestContext\.http\.method"/,
      ],
      [{ version: '2.0', requestContext: { http: { method: 'GET' } } }, /"rawPath"/],
      [{ requestContext: { elb: { targetGroupArn: 'arn' } }, path: '/' }, /ALB.*"httpMethod"/],
      [{ httpMethod: 'GET', path: 42 }, /"path"/],
    ];
    for (const [event, message] of cases) {
      const error = await adapter.handleEvent(event as never).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(GatewayEventError);
      expect((error as GatewayEventError).code).toBe('MALFORMED_EVENT');
      expect((error as Error).message).toMatch(message);
    }
  });

  it('keeps the string values of multiValueHeaders and drops the rest', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/seen', ({ request }) => ({
      tags: request.headers.getAll('x-tag'),
      odd: request.headers.getAll('x-odd'),
      last: request.headers.get('x-last') ?? null,
    }));
    const event = restEvent({ method: 'GET', path: '/seen' });
    const multi = event.multiValueHeaders as Record<string, unknown>;
    multi['X-Tag'] = ['a', 7, null, 'b', { c: 1 }, 'c'];
    multi['X-Odd'] = 'not a list';
    multi['X-Last'] = [undefined, 'z'];
    const result = await new CloudGatewayAdapter(app, { metricsPublisher: null }).handleEvent(
      event,
      lambdaContext(),
    );
    const read = readV1Result(result);
    expect(read.status).toBe(200);
    expect(JSON.parse(new TextDecoder().decode(read.body))).toEqual({
      tags: ['a', 'b', 'c'],
      odd: [],
      last: 'z',
    });
  });

  it('never fails with a TypeError, whatever the event (property)', async () => {
    const shapes = fc.oneof(
      fc.anything(),
      fc.record(
        {
          httpMethod: fc.anything(),
          path: fc.anything(),
          headers: fc.anything(),
          multiValueHeaders: fc.anything(),
          requestContext: fc.anything(),
          body: fc.anything(),
          isBase64Encoded: fc.anything(),
        },
        { requiredKeys: ['httpMethod'] },
      ),
      fc.record({
        version: fc.constant('2.0'),
        rawPath: fc.anything(),
        rawQueryString: fc.anything(),
        cookies: fc.anything(),
        headers: fc.anything(),
        requestContext: fc.anything(),
        body: fc.anything(),
      }),
      fc.record({
        requestContext: fc.record({ elb: fc.anything() }),
        httpMethod: fc.anything(),
        path: fc.anything(),
        headers: fc.anything(),
        multiValueHeaders: fc.anything(),
        queryStringParameters: fc.anything(),
        multiValueQueryStringParameters: fc.anything(),
      }),
    );
    await fc.assert(
      fc.asyncProperty(shapes, async (event) => {
        try {
          const result = await adapter.handleEvent(event as never);
          expect(typeof (result as { statusCode: number }).statusCode).toBe('number');
        } catch (error) {
          expect(error).toBeInstanceOf(GatewayEventError);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('path encoding (properties)', () => {
  const PATH_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;

  it('a decoded path re-encodes so that decoding each segment gives it back exactly', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'grapheme', maxLength: 12 }).filter((s) => !s.includes('/')),
          { maxLength: 5 },
        ),
        (segments) => {
          const decoded = `/${segments.join('/')}`;
          const encoded = encodeDecodedPath(decoded);
          expect(encoded).toMatch(PATH_CHARS);
          expect(encoded.split('/').map((segment) => decodeURIComponent(segment))).toEqual(
            decoded.split('/'),
          );
        },
      ),
    );
  });

  it('an encoded path keeps its escapes byte for byte and loses nothing', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (text) => {
        const encodedPath = `/${encodeURIComponent(text)}`;
        expect(sanitizeEncodedPath(encodedPath)).toBe(encodedPath);
        const sanitized = sanitizeEncodedPath(`/${text}`);
        expect(sanitized).toMatch(PATH_CHARS);
        expect(sanitized).not.toMatch(/[?#]/);
      }),
    );
  });
});
