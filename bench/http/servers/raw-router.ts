/**
 * The floor: node:http with a hand-written router for the three measured routes (a string
 * compare, or a split for the parameterised one). `raw.ts` sends two headers; `raw-spec-headers.ts`
 * also sends the three restmachine must send (`vary: Accept`, a fresh `x-request-id`,
 * `accept-ranges: bytes`), to show what those cost Node with no framework at all.
 */
import { createServer, type ServerResponse } from 'node:http';
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

/** The five headers restmachine sends on a JSON answer, as a flat list. */
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

/** Starts the raw server answering with `send`. */
export function startRaw(send: Send): void {
  const server = createServer((req, res) => {
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
          send(res, 200, JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        } catch {
          send(res, 400, '{"error":"Bad Request"}');
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
  });
  server.listen(0, '127.0.0.1', () => announce((server.address() as AddressInfo).port));
}
