/**
 * The floor: node:http with a hand-written router for the three measured routes (a string
 * compare, or a split for the parameterised one). `raw.ts` sends two headers;
 * `raw-spec-headers.ts` sends exactly the headers restmachine sends on each answer (`vary:
 * Accept`, a fresh `x-request-id`, and `accept-ranges: bytes` on a GET's), to show what those
 * cost Node with no framework at all. test/bench/baselines.test.ts checks the lists.
 */
import { createServer, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROOT_DOCUMENT } from '../../lib/payload.js';
import { announce } from './ready.js';

type Send = (res: ServerResponse, status: number, body: string) => void;

/** Two headers, as an object. */
export const sendTwoHeaders: Send = (res, status, body) => {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
};

const ID_PREFIX = crypto.randomUUID().slice(0, 24);
let counter = 0;

/** The five headers restmachine sends on a GET's JSON answer, as a flat list. */
export const sendSpecHeaders: Send = (res, status, body) => {
  counter++;
  res.writeHead(status, [
    'vary',
    'Accept',
    'content-type',
    'application/json',
    'x-request-id',
    ID_PREFIX + counter.toString(16).padStart(12, '0'),
    'accept-ranges',
    'bytes',
    'content-length',
    String(Buffer.byteLength(body)),
  ]);
  res.end(body);
};

/** The four restmachine sends on a POST's (no `accept-ranges`). */
export const sendSpecPostHeaders: Send = (res, status, body) => {
  counter++;
  res.writeHead(status, [
    'vary',
    'Accept',
    'content-type',
    'application/json',
    'x-request-id',
    ID_PREFIX + counter.toString(16).padStart(12, '0'),
    'content-length',
    String(Buffer.byteLength(body)),
  ]);
  res.end(body);
};

/** The raw router answering GETs with `send` and POSTs with `sendPost`. */
export function rawListener(send: Send, sendPost: Send = send): RequestListener {
  return (req, res) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    if (req.method === 'GET' && path === '/') {
      send(res, 200, JSON.stringify(ROOT_DOCUMENT));
      return;
    }
    if (req.method === 'POST' && path === '/echo') {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        try {
          sendPost(res, 200, JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        } catch {
          sendPost(res, 400, '{"error":"Bad Request"}');
        }
      });
      return;
    }
    const segments = path.split('/');
    if (
      req.method === 'GET' &&
      segments.length === 5 &&
      segments[1] === 'users' &&
      segments[3] === 'posts'
    ) {
      const id = decodeURIComponent(segments[2] as string);
      const postId = decodeURIComponent(segments[4] as string);
      send(res, 200, JSON.stringify({ id, postId }));
      return;
    }
    send(res, 404, '{"error":"Not Found"}');
  };
}

/** Starts the raw server answering GETs with `send` and POSTs with `sendPost`. */
export function startRaw(send: Send, sendPost: Send = send): void {
  const server = createServer(rawListener(send, sendPost));
  server.listen(0, '127.0.0.1', () => announce((server.address() as AddressInfo).port));
}
