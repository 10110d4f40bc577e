/**
 * The raw node:http baselines of the benchmark send exactly the headers their framework sends
 * in each scenario (names, order and values; the request id by its shape, the length as it
 * comes), so "own overhead" subtracts the same header work. In memory, no valgrind; restmachine
 * runs from dist/ (built before the tests).
 */
import { createServer, type Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  rawListener,
  sendSpecHeaders,
  sendSpecPostHeaders,
} from '../../bench/http/servers/raw-router.js';
import { recordOne } from '../../bench/instructions/notes-servers.mjs';
import { ECHO_BODY, SERVERS } from '../../bench/instructions/servers.mjs';

const HEAD = 'Host: 127.0.0.1\r\nUser-Agent: wrk\r\nAccept: */*\r\n';
const REQUESTS = {
  'GET /': `GET / HTTP/1.1\r\n${HEAD}\r\n`,
  'GET /users/123/posts/456': `GET /users/123/posts/456 HTTP/1.1\r\n${HEAD}\r\n`,
  'POST /echo': `POST /echo HTTP/1.1\r\n${HEAD}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(ECHO_BODY)}\r\n\r\n${ECHO_BODY}`,
};
// What node:http adds by itself, to both sides alike.
const ADDED_BY_NODE = new Set(['date', 'connection', 'keep-alive']);
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The headers of the answer to `request`, in order, without node:http's own. */
async function headers(server: Server, request: string): Promise<Array<[string, string]>> {
  const text = await recordOne(server, request);
  const head = text.slice(0, text.indexOf('\r\n\r\n')).split('\r\n');
  expect(head[0]).toBe('HTTP/1.1 200 OK');
  return head
    .slice(1)
    .map((line): [string, string] => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon), line.slice(colon + 1).trim()];
    })
    .filter(([name]) => !ADDED_BY_NODE.has(name.toLowerCase()));
}

/** `got` has `wanted`'s names in its order, and its values but for the id and the length. */
function expectSameHeaders(got: Array<[string, string]>, wanted: Array<[string, string]>): void {
  expect(got.map(([name]) => name)).toEqual(wanted.map(([name]) => name));
  for (const [i, [name, value]] of wanted.entries()) {
    const other = got[i]?.[1] ?? '';
    if (name === 'x-request-id') {
      expect(value).toMatch(REQUEST_ID);
      expect(other).toMatch(REQUEST_ID);
    } else if (name !== 'content-length') {
      expect(other, name).toBe(value);
    }
  }
}

const PAIRS = [
  ['restmachine', 'raw-restmachine'],
  ['restmachine-json', 'raw-restmachine-json'],
  ['fastify', 'raw'],
] as const;

describe('instruction-count baselines (bench/instructions/servers.mjs)', () => {
  for (const [framework, baseline] of PAIRS) {
    for (const [scenario, request] of Object.entries(REQUESTS)) {
      it(`${baseline} sends the headers ${framework} sends on ${scenario}`, async () => {
        const create = (name: string) => (SERVERS[name] as () => Promise<Server>)();
        const wanted = await headers(await create(framework), request);
        expectSameHeaders(await headers(await create(baseline), request), wanted);
      });
    }
  }
});

describe('wall-clock baseline raw-spec-headers (bench/http/servers/raw-router.ts)', () => {
  for (const [scenario, request] of Object.entries(REQUESTS)) {
    it(`sends the headers restmachine sends on ${scenario}`, async () => {
      const restmachine = await (SERVERS.restmachine as () => Promise<Server>)();
      const raw = createServer(rawListener(sendSpecHeaders, sendSpecPostHeaders));
      expectSameHeaders(await headers(raw, request), await headers(restmachine, request));
    });
  }
});
