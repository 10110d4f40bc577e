/**
 * pino and Powertools' Logger as the `logger` option, as they are: the real packages, their
 * output captured and parsed line by line (docs/logging.md).
 */
import { Console } from 'node:console';
import { Writable } from 'node:stream';
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { serve } from '../../src/adapters/node/index.js';
import { isPino } from '../../src/app/logger-adapters.js';
import {
  type ApplicationOptions,
  createConsoleLogger,
  type LogFields,
  Request,
  RestApplication,
  silentLogger,
} from '../../src/index.js';

type Line = Record<string, unknown>;

/** A pino logger writing parsed JSON lines into `lines`. */
function capturedPino(lines: Line[], options: Parameters<typeof pino>[0] = {}) {
  return pino(
    { level: 'debug', ...(options as object) },
    { write: (chunk: string) => lines.push(JSON.parse(chunk) as Line) },
  );
}

/** A Powertools Logger whose console writes parsed JSON lines into `lines`. */
function capturedPowertools(lines: Line[]): PowertoolsLogger {
  const logger = new PowertoolsLogger({ serviceName: 'notes', logLevel: 'DEBUG' });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n')) {
        if (text.trim() !== '') lines.push(JSON.parse(text) as Line);
      }
      done();
    },
  });
  // Powertools writes through its own `console` (a node:console Console on stdout/stderr).
  (logger as unknown as { console: Console }).console = new Console({
    stdout: sink,
    stderr: sink,
  });
  return logger;
}

function notesApp(logger: ConstructorParameters<typeof RestApplication>[0]) {
  const app = new RestApplication(logger);
  app.get('/notes/{id}', ({ id, log }) => {
    log.info('Note read', { noteId: id, tags: ['a'] });
    return { id };
  });
  app.get('/fail', ({ log }) => {
    log.warn('About to fail', { error: new Error('warned') });
    throw new Error('boom');
  });
  return app;
}

describe('pino as the logger', () => {
  it('keeps the message, the fields and the request id of `log` lines', async () => {
    const lines: Line[] = [];
    const app = notesApp({ logger: capturedPino(lines) });
    const response = await app.request('/notes/7');
    expect(response.statusCode).toBe(200);
    const requestId = response.headers.get('x-request-id');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 30,
      msg: 'Note read',
      noteId: '7',
      tags: ['a'],
      requestId,
    });
  });

  it("keeps a thrown error's message and stack, with the request id", async () => {
    const lines: Line[] = [];
    const app = notesApp({ logger: capturedPino(lines) });
    const response = await app.request('/fail');
    expect(response.statusCode).toBe(500);
    const requestId = response.headers.get('x-request-id');
    expect(lines.map((line) => line.msg)).toEqual(['About to fail', 'Unhandled error in request']);
    const [warned, failed] = lines as [Line, Line];
    expect(warned).toMatchObject({ level: 40, requestId, error: { message: 'warned' } });
    expect(failed).toMatchObject({ level: 50, requestId, path: '/fail', method: 'GET' });
    const error = failed.error as Line;
    expect(error).toMatchObject({ type: 'Error', message: 'boom' });
    expect(error.stack).toMatch(/^Error: boom\n\s+at /);
  });

  it('works through a child logger and with a serializer of its own for `error`', async () => {
    const lines: Line[] = [];
    const root = capturedPino(lines, {
      serializers: { error: (error: Error) => ({ only: error.message }) },
    });
    const app = notesApp({ logger: root.child({ service: 'notes' }) });
    await app.request('/fail');
    expect(lines[1]).toMatchObject({ service: 'notes', error: { only: 'boom' } });
  });

  it('gets lines the application writes outside requests in the same order', async () => {
    const lines: Line[] = [];
    const app = new RestApplication({ logger: capturedPino(lines) }).onStartup(({ log }) => {
      log.info('Warming up', { cache: 'notes' });
    });
    await app.startup();
    app.logger.debug('Direct', { n: 1 });
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'Warming up', cache: 'notes' }),
      expect.objectContaining({ level: 20, msg: 'Direct', n: 1 }),
    ]);
  });

  it("writes a request's headers as an object with lower-case names, which redact paths reach", async () => {
    const lines: Line[] = [];
    const app = new RestApplication({
      logger: capturedPino(lines, { redact: ['headers.authorization'] }),
    });
    app.get('/seen', ({ headers, log }) => {
      log.info('Headers', { headers });
      return { ok: true };
    });
    const response = await app.request('/seen', {
      headers: [
        ['Authorization', 'Bearer secret'],
        ['X-Tag', 'a'],
        ['x-tag', 'b'],
        ['Accept', 'application/json'],
      ],
    });
    expect(response.statusCode).toBe(200);
    expect(lines[0]?.headers).toEqual({
      authorization: '[Redacted]',
      'x-tag': ['a', 'b'],
      accept: 'application/json',
    });
  });

  it('keeps a message with printf-like characters as it is', async () => {
    const lines: Line[] = [];
    const app = new RestApplication({ logger: capturedPino(lines) });
    app.logger.info('100%s done %d');
    expect(lines[0]?.msg).toBe('100%s done %d');
  });
});

describe("Powertools' Logger as the logger", () => {
  it('keeps the message, the fields and the request id of `log` lines', async () => {
    const lines: Line[] = [];
    const app = notesApp({ logger: capturedPowertools(lines) });
    const response = await app.request('/notes/7');
    const requestId = response.headers.get('x-request-id');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'INFO',
      message: 'Note read',
      service: 'notes',
      noteId: '7',
      tags: ['a'],
      requestId,
    });
  });

  it("writes a request's headers as an object with lower-case names", async () => {
    const lines: Line[] = [];
    const app = new RestApplication({ logger: capturedPowertools(lines) });
    app.get('/seen', ({ headers, log }) => {
      log.info('Headers', { headers });
      return { ok: true };
    });
    await app.request('/seen', {
      headers: [
        ['X-Tag', 'a'],
        ['X-Tag', 'b'],
        ['Host', 'h'],
      ],
    });
    expect(lines[0]?.headers).toEqual({ 'x-tag': ['a', 'b'], host: 'h' });
  });

  it("keeps a thrown error's name, message and stack, with the request id", async () => {
    const lines: Line[] = [];
    const app = notesApp({ logger: capturedPowertools(lines) });
    const response = await app.request('/fail');
    const requestId = response.headers.get('x-request-id');
    expect(lines.map((line) => line.message)).toEqual([
      'About to fail',
      'Unhandled error in request',
    ]);
    const [warned, failed] = lines as [Line, Line];
    expect(warned).toMatchObject({ level: 'WARN', requestId, error: { message: 'warned' } });
    expect(failed).toMatchObject({ level: 'ERROR', requestId, path: '/fail' });
    const error = failed.error as Line;
    expect(error).toMatchObject({ name: 'Error', message: 'boom' });
    expect(error.stack).toMatch(/^Error: boom\n\s+at /);
  });
});

describe('logger detection', () => {
  it('tells pino loggers, children included, from loggers in restmachine order', () => {
    expect(isPino(capturedPino([]))).toBe(true);
    expect(isPino(capturedPino([]).child({ a: 1 }))).toBe(true);
    expect(isPino(capturedPowertools([]))).toBe(false);
    expect(isPino(createConsoleLogger())).toBe(false);
    expect(isPino(console)).toBe(false);
  });

  it("calls Powertools' Logger and loggers in restmachine order with the arguments as given", () => {
    const calls: unknown[][] = [];
    const logger = { ...silentLogger, warn: (...args: unknown[]) => void calls.push(args) };
    new RestApplication({ logger }).logger.warn('Slow', { ms: 9 });
    expect(calls).toEqual([['Slow', { ms: 9 }]]);
    const lines: Line[] = [];
    new RestApplication({ logger: capturedPowertools(lines) }).logger.warn('Slow', { ms: 9 });
    expect(lines).toEqual([expect.objectContaining({ level: 'WARN', message: 'Slow', ms: 9 })]);
  });

  it('a logger that throws never keeps a request from being answered; the line goes to stderr', async () => {
    const written: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: unknown) => {
      written.push(String(line));
    });
    try {
      // A JSON-lines logger meeting a circular error, as an HTTP client's errors are.
      const write = (message: string, fields?: LogFields) =>
        void JSON.stringify({ message, ...fields });
      const logger = { debug: write, info: write, warn: write, error: write };
      const app = new RestApplication({ logger, accessLog: true });
      app.get('/boom', () => {
        const error: Error & { self?: unknown } = new Error('upstream failed');
        error.self = error;
        throw error;
      });
      app.onResponse(() => {
        throw new Error('hook failed');
      });
      const response = await app.request('/boom', { headers: { 'X-Request-ID': 'req-7' } });
      expect(response.statusCode).toBe(500);
      const refused = written.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(refused[0]).toEqual({
        level: 'error',
        msg: 'Unhandled error in request',
        requestId: 'req-7',
        loggerError: expect.stringContaining('circular'),
      });
      const thrower = {
        ...silentLogger,
        error: () => {
          throw new Error('closed');
        },
      };
      const failing = new RestApplication({ logger: thrower });
      failing.get('/x', () => {
        throw new Error('x');
      });
      expect((await failing.request('/x')).statusCode).toBe(500);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('the default console logger', () => {
  it('writes a thrown value it cannot encode as JSON, and the client still gets the 500', async () => {
    const written: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: unknown) => {
      written.push(String(line));
    });
    try {
      const app = new RestApplication({ logger: createConsoleLogger() });
      app.get('/circular', () => {
        const value: Record<string, unknown> = { id: 7n };
        value.self = value;
        value.cause = new Error('disk full');
        throw value;
      });
      const response = await app.request('/circular');
      expect(response.statusCode).toBe(500);
      expect(JSON.parse(response.body as string)).toMatchObject({ statusCode: 500 });
      const line = JSON.parse(written.at(-1) as string) as Line;
      expect(line).toMatchObject({
        level: 'error',
        msg: 'Unhandled error in request',
        error: { id: '7', self: '[Circular]', cause: { name: 'Error', message: 'disk full' } },
      });
      expect(typeof line.requestId).toBe('string');
    } finally {
      spy.mockRestore();
    }
  });

  it("writes an error's cause, its own fields and an AggregateError's errors, as pino does", async () => {
    const written: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: unknown) => {
      written.push(String(line));
    });
    try {
      const app = new RestApplication({ logger: createConsoleLogger() });
      const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), {
        code: 'ECONNREFUSED',
      });
      app.get('/wrapped', () => {
        throw new Error('Database unavailable', { cause: refused });
      });
      app.get('/several', () => {
        throw new AggregateError([new Error('first'), refused], 'Both failed');
      });
      app.get('/itself', () => {
        const error = new Error('loop');
        error.cause = error;
        throw error;
      });
      for (const path of ['/wrapped', '/several', '/itself']) await app.request(path);
      const [wrapped, several, itself] = written.map((line) => JSON.parse(line) as Line);
      expect(wrapped?.error).toMatchObject({
        message: 'Database unavailable',
        cause: { message: 'connect ECONNREFUSED 10.0.0.5:5432', code: 'ECONNREFUSED' },
      });
      expect(several?.error).toMatchObject({
        name: 'AggregateError',
        errors: [{ message: 'first' }, { code: 'ECONNREFUSED' }],
      });
      expect(itself?.error).toMatchObject({ message: 'loop', cause: '[Circular]' });
    } finally {
      spy.mockRestore();
    }
  });
});

describe('a field that throws when it is read', () => {
  it('costs the console logger that field only: the message, stack and time stay', async () => {
    const written: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: unknown) => {
      written.push(String(line));
    });
    try {
      const app = new RestApplication({ logger: createConsoleLogger() });
      app.get('/getter', ({ log }) => {
        const error = Object.defineProperty(new Error('disk full'), 'detail', {
          enumerable: true,
          get() {
            throw new Error('not loaded');
          },
        });
        log.error('Save failed', { error, fileId: 3 });
        return 'ok';
      });
      app.get('/to-json', ({ log }) => {
        const token = {
          toJSON() {
            throw new Error('revoked');
          },
        };
        log.error('Refresh failed', { token, attempt: 2, error: new Error('expired') });
        return 'ok';
      });
      await app.request('/getter');
      await app.request('/to-json');
    } finally {
      spy.mockRestore();
    }
    const [getter, toJson] = written.map((text) => JSON.parse(text) as Line);
    expect(getter).toMatchObject({
      level: 'error',
      time: expect.any(String),
      msg: 'Save failed',
      fileId: 3,
      error: { detail: '[Unreadable]', name: 'Error', message: 'disk full' },
    });
    expect((getter?.error as Line | undefined)?.stack).toMatch(/^Error: disk full\n/);
    expect(toJson).toMatchObject({
      time: expect.any(String),
      msg: 'Refresh failed',
      token: '[Unreadable]',
      attempt: 2,
      error: { message: 'expired' },
    });
    expect(getter).not.toHaveProperty('loggerError');
  });

  it('costs a field read at the top of the line that field only, through log and given directly', async () => {
    const written: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      written.push(String(line));
    });
    const fields = () => ({
      get session(): string {
        throw new Error('not loaded');
      },
      userId: 7,
    });
    try {
      const logger = createConsoleLogger();
      logger.info('Direct', fields());
      const app = new RestApplication({ logger });
      app.get('/', ({ log }) => {
        log.info('Through log', fields());
        return 'ok';
      });
      expect((await app.request('/')).statusCode).toBe(200);
    } finally {
      spy.mockRestore();
    }
    const [direct, bound] = written.map((text) => JSON.parse(text) as Line);
    expect(direct).toMatchObject({ msg: 'Direct', session: '[Unreadable]', userId: 7 });
    expect(bound).toMatchObject({ msg: 'Through log', session: '[Unreadable]', userId: 7 });
  });

  it('logs a request given to the console logger directly as its summary, as log does', () => {
    const written: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      written.push(String(line));
    });
    try {
      // What a JavaScript caller, or one holding an untyped value, can pass.
      const request = new Request({ method: 'POST', path: '/a', body: 'password=hunter2' });
      createConsoleLogger().info('Seen', request as unknown as LogFields);
    } finally {
      spy.mockRestore();
    }
    const line = JSON.parse(written[0] as string) as Line;
    expect(line).toMatchObject({ msg: 'Seen', request: { method: 'POST', path: '/a' } });
    expect(line).not.toHaveProperty('method');
    expect(written[0]).not.toContain('hunter2');
  });
});

describe('a field under a name the line uses itself', () => {
  function promotingApp(logger: ApplicationOptions['logger']) {
    const app = new RestApplication({ logger });
    app.get('/promote', ({ log }) => {
      log.info('User promoted', {
        userId: 7,
        level: 'admin',
        msg: 'x',
        time: 'yesterday',
        requestId: 'forged',
      });
      return 'ok';
    });
    return app;
  }

  it('is dropped by the console logger: level, time, msg and the request id stay first and true', async () => {
    const written: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      written.push(String(line));
    });
    let requestId: string | undefined;
    try {
      requestId = (await promotingApp(createConsoleLogger()).request('/promote')).headers.get(
        'x-request-id',
      );
    } finally {
      spy.mockRestore();
    }
    expect(written).toHaveLength(1);
    const line = JSON.parse(written[0] as string) as Line;
    expect(Object.keys(line).slice(0, 3)).toEqual(['level', 'time', 'msg']);
    expect(line).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      msg: 'User promoted',
      userId: 7,
      requestId,
    });
  });

  it('never replaces the request id `log` binds, with pino or Powertools', async () => {
    const pinoLines: Line[] = [];
    const fromPino = await promotingApp(capturedPino(pinoLines)).request('/promote');
    expect(pinoLines[0]).toMatchObject({
      msg: 'User promoted',
      requestId: fromPino.headers.get('x-request-id'),
    });
    const powertoolsLines: Line[] = [];
    const fromPowertools = await promotingApp(capturedPowertools(powertoolsLines)).request(
      '/promote',
    );
    const promoted = powertoolsLines.find((line) => line.message === 'User promoted');
    expect(promoted).toMatchObject({
      level: 'INFO',
      requestId: fromPowertools.headers.get('x-request-id'),
    });
  });
});

describe("`log.error('message', error)`, as console and Powertools users write it", () => {
  function failingApp(logger: ConstructorParameters<typeof RestApplication>[0]) {
    const app = new RestApplication(logger);
    app.get('/charge', ({ log }) => {
      // Deliberately not a map of fields: plain JavaScript callers pass the error itself.
      const logAny = log as unknown as {
        error(m: string, e: unknown): void;
        info(m: string, e: unknown): void;
      };
      logAny.error('Charge failed', new Error('card declined'));
      logAny.info('Attempt', 'second');
      return 'ok';
    });
    return app;
  }

  it('keeps the error under `error` with pino, and a plain value under `extra`', async () => {
    const lines: Line[] = [];
    const response = await failingApp({ logger: capturedPino(lines) }).request('/charge');
    const requestId = response.headers.get('x-request-id');
    expect(lines[0]).toMatchObject({
      msg: 'Charge failed',
      requestId,
      error: { message: 'card declined' },
    });
    expect((lines[0]?.error as Line | undefined)?.stack).toMatch(/^Error: card declined\n/);
    expect(lines[1]).toMatchObject({ msg: 'Attempt', requestId, extra: 'second' });
    expect(lines[1]).not.toHaveProperty('0');
  });

  it('keeps the error under `error` with Powertools', async () => {
    const lines: Line[] = [];
    await failingApp({ logger: capturedPowertools(lines) }).request('/charge');
    expect(lines[0]).toMatchObject({
      message: 'Charge failed',
      error: { message: 'card declined' },
    });
    expect(lines[1]).toMatchObject({ message: 'Attempt', extra: 'second' });
  });
});

describe('a logged request or response', () => {
  /**
   * An application that logs the request its handler sees and the response its `onResponse`
   * hook sees, served by the Node adapter on 127.0.0.1 (a Node request holds its connection).
   */
  async function loggedOverHttp(logger: ApplicationOptions['logger'], asTheFields = false) {
    const app = new RestApplication({ logger });
    app.post('/sign-in', ({ request, log }) => {
      // From plain JavaScript, the request itself in place of the fields.
      if (asTheFields)
        (log.info as (message: string, fields: unknown) => void)('Signing in', request);
      else log.info('Signing in', { request });
      return { ok: true };
    });
    app.onResponse(({ response, log }) =>
      asTheFields
        ? (log.info as (message: string, fields: unknown) => void)('Answered', response)
        : log.info('Answered', { response }),
    );
    const server = await serve(app, { port: 0, host: '127.0.0.1', handleSignals: false });
    try {
      const response = await fetch(`${server.url}/sign-in?next=%2Fhome`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer secret-token',
          'content-type': 'application/x-www-form-urlencoded',
          'x-request-id': 'req-log-1',
        },
        body: 'user=ada&password=hunter2',
      });
      expect(response.status).toBe(200);
    } finally {
      await server.close();
    }
  }

  const expectedRequest = (authorization: string) => ({
    method: 'POST',
    path: '/sign-in',
    query: 'next=%2Fhome',
    headers: expect.objectContaining({
      authorization,
      'content-type': 'application/x-www-form-urlencoded',
    }),
    requestId: 'req-log-1',
    remoteAddress: '127.0.0.1',
    protocol: 'http',
  });

  it('is its method, path, query, headers and address for pino, which redact paths reach', async () => {
    const lines: Line[] = [];
    await loggedOverHttp(
      capturedPino(lines, {
        redact: ['request.headers.authorization', 'response.headers["x-request-id"]'],
      }),
    );
    const [signing, answered] = lines as [Line, Line];
    // Before, pino wrote "[unable to serialize, circular reference is too complex to analyze]".
    expect(signing.request).toEqual(expectedRequest('[Redacted]'));
    expect(answered.response).toEqual({
      statusCode: 200,
      headers: expect.objectContaining({
        'content-type': 'application/json',
        'x-request-id': '[Redacted]',
      }),
    });
    expect(JSON.stringify(lines)).not.toContain('hunter2');
  });

  it('is the same for Powertools and the console logger, never with the body', async () => {
    const lines: Line[] = [];
    await loggedOverHttp(capturedPowertools(lines));
    const written: string[] = [];
    // The console logger writes info lines with console.log.
    const spy = vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      written.push(String(line));
    });
    try {
      await loggedOverHttp(createConsoleLogger({ level: 'info' }));
    } finally {
      spy.mockRestore();
    }
    const consoleLines = written.map((text) => JSON.parse(text) as Line);
    for (const logged of [lines, consoleLines]) {
      const signing = logged.find((line) => line.request !== undefined) as Line;
      expect(signing.request).toEqual(expectedRequest('Bearer secret-token'));
      const answered = logged.find((line) => line.response !== undefined) as Line;
      expect(answered.response).toEqual({ statusCode: 200, headers: expect.any(Object) });
      expect(JSON.stringify(logged)).not.toContain('hunter2');
    }
  });

  it('is the same given in place of the fields, never its body, raw headers or connection', async () => {
    const pinoLines: Line[] = [];
    await loggedOverHttp(
      capturedPino(pinoLines, { redact: ['request.headers.authorization'] }),
      true,
    );
    const powertoolsLines: Line[] = [];
    await loggedOverHttp(capturedPowertools(powertoolsLines), true);
    const written: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      written.push(String(line));
    });
    try {
      await loggedOverHttp(createConsoleLogger({ level: 'info' }), true);
    } finally {
      spy.mockRestore();
    }
    const consoleLines = written.map((text) => JSON.parse(text) as Line);
    for (const [logged, authorization] of [
      [pinoLines, '[Redacted]'],
      [powertoolsLines, 'Bearer secret-token'],
      [consoleLines, 'Bearer secret-token'],
    ] as const) {
      const signing = logged.find((line) => line.request !== undefined) as Line;
      expect(signing.request).toEqual(expectedRequest(authorization));
      expect(signing).not.toHaveProperty('body');
      const answered = logged.find((line) => line.response !== undefined) as Line;
      expect(answered.response).toEqual({ statusCode: 200, headers: expect.any(Object) });
      const text = JSON.stringify(logged);
      expect(text).not.toContain('hunter2');
      // A Node request's ServerResponse, which the request's own fields hold.
      expect(text).not.toContain('outputData');
    }
  });
});
