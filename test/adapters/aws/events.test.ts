/**
 * Each event kind maps completely into a Request: method, path (stage and base path removed,
 * encoding as the router expects), headers, query, cookies, body, tls, client certificate,
 * authorizer, request id and the Lambda context.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  ALBEvent,
  ALBHandler,
  APIGatewayProxyEventV2,
  APIGatewayProxyHandler,
  APIGatewayProxyHandlerV2,
  APIGatewayProxyWithCognitoAuthorizerEvent,
  LambdaFunctionURLHandler,
} from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { CloudGatewayAdapter } from '../../../src/adapters/aws/index.js';
import { RestApplication, silentLogger } from '../../../src/index.js';
import { StaticRouter } from '../../../src/static/index.js';
import {
  albEvent,
  consoleTestEvent,
  lambdaContext,
  readAlbResult,
  readV1Result,
  readV2Result,
  restEvent,
  v2Event,
} from './fixtures.js';

const CERT = {
  clientCertPem:
    '-----BEGIN CERTIFICATE-----\nMIIEZTCCAk0CAQEwDQYJKoZIhvcNAQELBQAwfDELMAkGA1UEBhMCVVMx\n-----END CERTIFICATE-----',
  subjectDN: 'C=US,ST=Washington,L=Seattle,O=Example Corp,OU=Clients,CN=client-42',
  issuerDN: 'C=US,ST=Washington,L=Seattle,O=Example Corp,OU=PKI,CN=Example Root CA',
  serialNumber: 'a1:b2:c3:d4:e5:f6:00:11:22:33:44:55',
  validity: { notBefore: 'Jan 15 00:00:00 2025 GMT', notAfter: 'Jan 15 00:00:00 2026 GMT' },
};

/** CERT's subject as Node's `getPeerCertificate()` gives one (docs/node.md). */
const SUBJECT = {
  C: 'US',
  ST: 'Washington',
  L: 'Seattle',
  O: 'Example Corp',
  OU: 'Clients',
  CN: 'client-42',
};

/** An app whose one catch-all route reports everything it was given. */
function inspectingApp() {
  const app = new RestApplication({ logger: silentLogger });
  const report = async ({
    request,
    authorizer,
    lambdaContext: context,
    lambdaEvent,
    requestId,
    cookies,
  }: {
    request: import('../../../src/index.js').Request;
    authorizer: unknown;
    lambdaContext: unknown;
    lambdaEvent: unknown;
    requestId: string;
    cookies: Record<string, string>;
  }) => ({
    method: request.method,
    rawPath: request.path,
    catchAll: request.pathParams.path,
    pathParams: request.pathParams,
    query: request.queryParamsAll,
    headers: request.headers.toMultiDict(),
    cookies,
    body: await request.text(),
    tls: request.tls,
    protocol: request.protocol,
    remoteAddress: request.remoteAddress ?? null,
    clientCert: request.clientCert ?? null,
    authorizer: authorizer ?? null,
    functionName: (context as { functionName?: string } | undefined)?.functionName ?? null,
    hasEvent: lambdaEvent !== undefined,
    requestId,
  });
  for (const method of ['get', 'post', 'put', 'patch', 'delete', 'options'] as const) {
    app[method]('/{path*}', report as never);
    app[method]('/orders/{id}', report as never);
    app[method]('/forms/{name}', report as never);
  }
  return app;
}

type Report = ReturnType<typeof JSON.parse>;

function text(body: Uint8Array): string {
  return new TextDecoder().decode(body);
}

describe('API Gateway REST (payload 1.0)', () => {
  const adapter = new CloudGatewayAdapter(inspectingApp(), { metricsPublisher: null });

  it('maps method, encoded path, every header and query value, body, identity and authorizer', async () => {
    const event = restEvent(
      {
        method: 'POST',
        path: '/orders/a%20b%2Fc?tag=x&tag=y%26z&q=one+two',
        headers: {
          'Content-Type': 'text/plain',
          'X-Multi': ['1', '2'],
          Cookie: 'session=abc; theme=dark',
        },
        body: 'hello',
      },
      { authorizer: { principalId: 'user-7', scope: 'orders:write' }, clientCert: CERT },
    );
    const snapshot = JSON.stringify(event);
    const context = lambdaContext();
    const result = await adapter.handleEvent(event, context);
    expect(JSON.stringify(event)).toBe(snapshot); // the event is never changed
    const report: Report = JSON.parse(text(readV1Result(result).body));
    expect(report.method).toBe('POST');
    expect(report.rawPath).toBe('/orders/a%20b%2Fc'); // REST keeps the client's encoding
    expect(report.pathParams).toEqual({ id: 'a b/c' });
    expect(report.query).toEqual({ tag: ['x', 'y&z'], q: ['one two'] });
    expect(report.headers['x-multi']).toEqual(['1', '2']);
    expect(report.headers['content-type']).toEqual(['text/plain']);
    expect(Object.keys(report.headers).every((name: string) => name === name.toLowerCase())).toBe(
      true,
    );
    expect(report.cookies).toEqual({ session: 'abc', theme: 'dark' });
    expect(report.body).toBe('hello');
    expect(report.tls).toBe(true);
    expect(report.protocol).toBe('https');
    expect(report.remoteAddress).toBe('198.51.100.7');
    // The gateway's DN strings as the object Node gives (docs/aws-lambda.md).
    expect(report.clientCert).toEqual({
      subject: SUBJECT,
      issuer: { ...SUBJECT, OU: 'PKI', CN: 'Example Root CA' },
      serialNumber: CERT.serialNumber,
      validFrom: CERT.validity.notBefore,
      validTo: CERT.validity.notAfter,
      pem: CERT.clientCertPem,
    });
    expect(report.authorizer).toEqual({ principalId: 'user-7', scope: 'orders:write' });
    expect(report.functionName).toBe('users-api');
    expect(report.hasEvent).toBe(true);
    expect(report.requestId).toBe(event.requestContext.requestId);
    expect(readV1Result(result).headers.get('x-request-id')).toBe(event.requestContext.requestId);
  });

  it('routes without the stage and strips a base path mapping', async () => {
    const mapped = new CloudGatewayAdapter(inspectingApp(), {
      metricsPublisher: null,
      basePath: '/api/',
    });
    const event = restEvent(
      { method: 'GET', path: '/api/users/7' },
      { domainName: 'api.example.com' },
    );
    expect(event.requestContext.path).toBe('/prod/api/users/7');
    const report: Report = JSON.parse(text(readV1Result(await mapped.handleEvent(event)).body));
    expect(report.rawPath).toBe('/users/7');
    const root: Report = JSON.parse(
      text(readV1Result(await mapped.handleEvent(restEvent({ method: 'GET', path: '/api' }))).body),
    );
    expect(root.rawPath).toBe('/');
    const other: Report = JSON.parse(
      text(
        readV1Result(await mapped.handleEvent(restEvent({ method: 'GET', path: '/apis/x' }))).body,
      ),
    );
    expect(other.rawPath).toBe('/apis/x');
  });

  it('answers the API Gateway console test event, whose maps are all null', async () => {
    const event = consoleTestEvent('GET', '/health');
    const result = await adapter.handleEvent(event);
    expect(result.statusCode).toBe(200);
    const report: Report = JSON.parse(result.body);
    expect(report.rawPath).toBe('/health');
    expect(report.query).toEqual({});
    expect(report.headers).toEqual({});
    expect(report.body).toBe('');
    expect(report.authorizer).toBeNull();
    expect(report.requestId).toBe('test-invoke-request');
    expect(report.remoteAddress).toBe('test-invoke-source-ip');
  });
});

describe('HTTP API payload 1.0', () => {
  it('re-encodes the decoded path and removes a named stage on the default endpoint', async () => {
    const adapter = new CloudGatewayAdapter(inspectingApp(), { metricsPublisher: null });
    const event = restEvent(
      { method: 'GET', path: '/files/100%25%20sure%3F' },
      { version: '1.0', stage: 'dev' },
    );
    expect(event.path).toBe('/dev/files/100% sure?');
    const report: Report = JSON.parse(text(readV1Result(await adapter.handleEvent(event)).body));
    expect(report.rawPath).toBe('/files/100%25%20sure%3F');
    expect(report.catchAll).toBe('files/100% sure?');
  });
});

describe('HTTP API payload 2.0', () => {
  const adapter = new CloudGatewayAdapter(inspectingApp(), { metricsPublisher: null });

  it('keeps repeated query keys from rawQueryString, not the comma-joined map', async () => {
    const event = v2Event({ method: 'GET', path: '/search?tag=a%2Cb&tag=c&empty=&flag' });
    expect(event.queryStringParameters?.tag).toBe('a,b,c'); // ambiguous: three values or two?
    const report: Report = JSON.parse(text(readV2Result(await adapter.handleEvent(event)).body));
    expect(report.query).toEqual({ tag: ['a,b', 'c'], empty: [''], flag: [''] });
  });

  it('re-encodes the decoded rawPath so the router decodes it back exactly once', async () => {
    const event = v2Event({ method: 'GET', path: '/files/r%C3%A9sum%C3%A9%20%25%2541.pdf' });
    expect(event.rawPath).toBe('/files/résumé %%41.pdf');
    const report: Report = JSON.parse(text(readV2Result(await adapter.handleEvent(event)).body));
    expect(report.catchAll).toBe('files/résumé %%41.pdf');
    expect(report.rawPath).toBe('/files/r%C3%A9sum%C3%A9%20%25%2541.pdf');
  });

  it('a decoded ? or # stays in the path instead of starting a query', async () => {
    const event = v2Event({ method: 'GET', path: '/notes/what%3Fnext%23top?real=1' });
    const report: Report = JSON.parse(text(readV2Result(await adapter.handleEvent(event)).body));
    expect(report.catchAll).toBe('notes/what?next#top');
    expect(report.query).toEqual({ real: ['1'] });
  });

  it('removes a named stage on the default endpoint but not on a custom domain', async () => {
    const staged = v2Event({ method: 'GET', path: '/users' }, { stage: 'dev' });
    expect(staged.rawPath).toBe('/dev/users');
    expect(JSON.parse(text(readV2Result(await adapter.handleEvent(staged)).body)).rawPath).toBe(
      '/users',
    );
    const custom = v2Event(
      { method: 'GET', path: '/dev/users' },
      { stage: 'dev', domainName: 'api.example.com' },
    );
    expect(JSON.parse(text(readV2Result(await adapter.handleEvent(custom)).body)).rawPath).toBe(
      '/dev/users',
    );
  });

  it('puts the cookies array into one Cookie header, never doubled', async () => {
    const request = { method: 'GET', path: '/me', headers: { cookie: 'session=abc; theme=dark' } };
    for (const event of [v2Event(request), v2Event(request, { cookieHeaderToo: true })]) {
      expect(event.cookies).toEqual(['session=abc', 'theme=dark']);
      const report: Report = JSON.parse(text(readV2Result(await adapter.handleEvent(event)).body));
      expect(report.headers.cookie).toEqual(['session=abc; theme=dark']);
      expect(report.cookies).toEqual({ session: 'abc', theme: 'dark' });
    }
  });

  it('maps the JWT authorizer, mutual TLS certificate, source IP and request id', async () => {
    const authorizer = { jwt: { claims: { sub: 'user-7', scope: 'read' }, scopes: ['read'] } };
    const event = v2Event({ method: 'GET', path: '/me' }, { authorizer, clientCert: CERT });
    const report: Report = JSON.parse(
      text(readV2Result(await adapter.handleEvent(event, lambdaContext())).body),
    );
    expect(report.authorizer).toEqual(authorizer);
    expect(report.clientCert.subject).toEqual(SUBJECT);
    expect(report.clientCert.subject.CN).toBe('client-42');
    expect(report.clientCert.pem).toBe(CERT.clientCertPem);
    expect(report.remoteAddress).toBe('198.51.100.7');
    expect(report.requestId).toBe(event.requestContext.requestId);
    expect(report.tls).toBe(true);
  });

  it('accepts every method, HEAD and OPTIONS included', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const result = readV2Result(await adapter.handleEvent(v2Event({ method, path: '/x' })));
      expect(JSON.parse(text(result.body)).method).toBe(method);
    }
    const head = await adapter.handleEvent(v2Event({ method: 'HEAD', path: '/x' }));
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
  });
});

describe('Function URLs', () => {
  const adapter = new CloudGatewayAdapter(inspectingApp(), { metricsPublisher: null });

  it('keep the path as sent and decode a base64 form post', async () => {
    const event = v2Event(
      {
        method: 'POST',
        path: '/forms/a%2Fb',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'name=J%C3%BCrgen&city=K%C3%B6ln',
      },
      { functionUrl: true, base64Text: true },
    );
    expect(event.isBase64Encoded).toBe(true);
    expect(event.rawPath).toBe('/forms/a%2Fb');
    const report: Report = JSON.parse(text(readV2Result(await adapter.handleEvent(event)).body));
    expect(report.rawPath).toBe('/forms/a%2Fb');
    expect(report.pathParams).toEqual({ name: 'a/b' });
    expect(report.body).toBe('name=J%C3%BCrgen&city=K%C3%B6ln');
    expect(report.tls).toBe(true);
  });
});

describe('Application Load Balancer', () => {
  const adapter = new CloudGatewayAdapter(inspectingApp(), { metricsPublisher: null });

  it('decodes percent-encoded query values exactly once, + as a space', async () => {
    for (const multiValue of [false, true]) {
      const event = albEvent(
        { method: 'GET', path: '/search?q=caf%C3%A9+au+lait&pct=100%2525&k%20ey=v' },
        { multiValue },
      );
      const report: Report = JSON.parse(
        text(readAlbResult(await adapter.handleEvent(event), multiValue).body),
      );
      expect(report.query).toEqual({ q: ['café au lait'], pct: ['100%25'], 'k ey': ['v'] });
    }
  });

  it('keeps repeated query keys and headers in multi-value mode', async () => {
    const event = albEvent(
      { method: 'GET', path: '/a?x=1&x=2', headers: { 'x-multi': ['one', 'two'] } },
      { multiValue: true },
    );
    const report: Report = JSON.parse(
      text(readAlbResult(await adapter.handleEvent(event), true).body),
    );
    expect(report.query).toEqual({ x: ['1', '2'] });
    expect(report.headers['x-multi']).toEqual(['one', 'two']);
  });

  it('takes tls from X-Forwarded-Proto and the client address from the last X-Forwarded-For entry', async () => {
    const plain = albEvent({ method: 'GET', path: '/' }, { proto: 'http' });
    const plainReport: Report = JSON.parse(
      text(readAlbResult(await adapter.handleEvent(plain), false).body),
    );
    expect(plainReport.tls).toBe(false);
    expect(plainReport.protocol).toBe('http');
    const spoofed = albEvent({ method: 'GET', path: '/' }) as ALBEvent;
    (spoofed.headers as Record<string, string>)['x-forwarded-for'] = '10.0.0.1, 203.0.113.9';
    const spoofedReport: Report = JSON.parse(
      text(readAlbResult(await adapter.handleEvent(spoofed), false).body),
    );
    expect(spoofedReport.tls).toBe(true);
    expect(spoofedReport.remoteAddress).toBe('203.0.113.9');
  });

  it('uses the Lambda invocation id as the request id', async () => {
    const context = lambdaContext();
    const result = readAlbResult(
      await adapter.handleEvent(albEvent({ method: 'GET', path: '/' }), context),
      false,
    );
    expect(JSON.parse(text(result.body)).requestId).toBe(context.awsRequestId);
  });

  it('reads the client certificate from the mutual TLS headers (verify and passthrough)', async () => {
    const pem =
      '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU+/x=\n-----END CERTIFICATE-----\n';
    const leaf = encodeURIComponent(pem)
      .replace(/%2B/g, '+')
      .replace(/%2F/g, '/')
      .replace(/%3D/g, '=');
    const verify = albEvent(
      { method: 'GET', path: '/' },
      {
        extraHeaders: {
          'x-amzn-mtls-clientcert-serial-number': '5A1B2C3D4E5F',
          'x-amzn-mtls-clientcert-issuer': 'CN=Example Root CA,OU=PKI,O=Example Corp,C=US',
          // RFC 4514: the last RDN first, an escaped comma, a multi-valued RDN, a repeated OU.
          'x-amzn-mtls-clientcert-subject':
            'CN=client-42+UID=42,OU=Clients,OU=Team\\2C East,O=Example\\, Corp,C=US',
          'x-amzn-mtls-clientcert-validity':
            'NotBefore=2025-01-15T00:00:00Z;NotAfter=2026-01-15T00:00:00Z',
          'x-amzn-mtls-clientcert-leaf': leaf,
        },
      },
    );
    const report: Report = JSON.parse(
      text(readAlbResult(await adapter.handleEvent(verify), false).body),
    );
    expect(report.clientCert).toEqual({
      verified: true,
      subject: {
        C: 'US',
        O: 'Example, Corp',
        OU: ['Team, East', 'Clients'],
        CN: 'client-42',
        UID: '42',
      },
      issuer: { C: 'US', O: 'Example Corp', OU: 'PKI', CN: 'Example Root CA' },
      serialNumber: '5A1B2C3D4E5F',
      validFrom: '2025-01-15T00:00:00Z',
      validTo: '2026-01-15T00:00:00Z',
      pem,
    });
    const passthrough = albEvent(
      { method: 'GET', path: '/' },
      { extraHeaders: { 'x-amzn-mtls-clientcert': leaf } },
    );
    const passReport: Report = JSON.parse(
      text(readAlbResult(await adapter.handleEvent(passthrough), false).body),
    );
    expect(passReport.clientCert).toEqual({ verified: false, pem });
    const overHttp = albEvent(
      { method: 'GET', path: '/' },
      { proto: 'http', extraHeaders: { 'x-amzn-mtls-clientcert': leaf } },
    );
    const httpReport: Report = JSON.parse(
      text(readAlbResult(await adapter.handleEvent(overHttp), false).body),
    );
    expect(httpReport.clientCert).toBeNull();
  });
});

describe('convertToRequest', () => {
  it('builds the same Request handleEvent would, with the gateway path parameters', () => {
    const adapter = new CloudGatewayAdapter(inspectingApp(), { metricsPublisher: null });
    const event: APIGatewayProxyEventV2 = v2Event({
      method: 'PUT',
      path: '/users/7?x=1',
      body: 'hi',
    });
    const context = lambdaContext();
    const request = adapter.convertToRequest(event, context);
    expect(request.method).toBe('PUT');
    expect(request.path).toBe('/users/7');
    expect(request.queryParams).toEqual({ x: '1' });
    expect(request.pathParams).toEqual({ proxy: 'users/7' });
    expect(request.body).toBe('hi');
    expect(request.context.lambdaEvent).toBe(event);
    expect(request.context.lambdaContext).toBe(context);
    expect(request.requestId).toBe(event.requestContext.requestId);
  });
});

describe('a static directory redirect behind a base path mapping', () => {
  it('points the client back under the mapping it asked through', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'restmachine-basepath-'));
    try {
      mkdirSync(join(directory, 'docs'));
      writeFileSync(join(directory, 'docs', 'index.html'), '<h1>docs</h1>');
      const app = new RestApplication({ logger: silentLogger });
      app.mount('/', new StaticRouter(directory));
      const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null, basePath: '/api' });
      const result = readV1Result(
        await adapter.handleEvent(
          restEvent({ method: 'GET', path: '/api/docs?v=2' }, { domainName: 'api.example.com' }),
        ),
      );
      expect(result.status).toBe(301);
      const location = result.headers.get('location') as string;
      expect(new URL(location, 'https://api.example.com/api/docs?v=2').href).toBe(
        'https://api.example.com/api/docs/?v=2',
      );
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('the types of @types/aws-lambda', () => {
  it('take the handler as each event kind handler, and Cognito-authorized events', async () => {
    const app = new RestApplication({ logger: silentLogger });
    app.get('/me', ({ request }) => ({ authorizer: request.context.authorizer ?? null }));
    const adapter = new CloudGatewayAdapter(app, { metricsPublisher: null });
    // Typed exports as @types/aws-lambda users write them: `npm run typecheck` checks these.
    const handlers: [
      APIGatewayProxyHandler,
      APIGatewayProxyHandlerV2,
      ALBHandler,
      LambdaFunctionURLHandler,
    ] = [adapter.handler, adapter.handler, adapter.handler, adapter.handler];
    expect(handlers).toHaveLength(4);
    const event = restEvent({ method: 'GET', path: '/me' });
    const cognito: APIGatewayProxyWithCognitoAuthorizerEvent = {
      ...event,
      requestContext: { ...event.requestContext, authorizer: { claims: { sub: 'user-1' } } },
    };
    const result = await adapter.handleEvent(cognito, lambdaContext());
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toEqual({ authorizer: { claims: { sub: 'user-1' } } });
  });
});
