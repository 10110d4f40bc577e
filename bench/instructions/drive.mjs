/**
 * Serves exactly N requests to one server over 50 in-memory keep-alive connections (no sockets,
 * no system calls), then exits. Run under `valgrind --tool=cachegrind` by instructions.sh.
 * Usage: node drive.mjs <server> <path> <requests>
 * The path `POST` sends the benchmark's 1 KB JSON document to POST /echo instead of a GET.
 */
import { Duplex } from 'node:stream';
import { ECHO_BODY, SERVERS } from './servers.mjs';

const [, , name, path = '/', total = '20000'] = process.argv;
// The compression benchmark's servers (compress-servers.mjs), loaded only when one is asked for
// (so the others run exactly as before), are sent `Accept-Encoding: gzip`.
const compress = SERVERS[name] === undefined ? await import('./compress-servers.mjs') : undefined;
const create = SERVERS[name] ?? compress?.COMPRESS_SERVERS[name];
if (create === undefined)
  throw new Error(`unknown server ${name}: ${Object.keys(SERVERS).join(', ')}`);
const server = await create();
const head = `Host: 127.0.0.1\r\nUser-Agent: wrk\r\nAccept: */*\r\n${compress?.COMPRESS_HEADERS ?? ''}`;
const request = Buffer.from(
  path === 'POST'
    ? `POST /echo HTTP/1.1\r\n${head}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(ECHO_BODY)}\r\n\r\n${ECHO_BODY}`
    : `GET ${path} HTTP/1.1\r\n${head}\r\n`,
);
const wanted = Number(total);
let sent = 0;
let done = 0;
let ready = [];
let scheduled = false;
let finish;

class Connection extends Duplex {
  remoteAddress = '127.0.0.1';
  remotePort = 40000;
  _read() {}
  _write(chunk, _encoding, callback) {
    this.received(chunk);
    callback();
  }
  _writev(chunks, callback) {
    for (const { chunk } of chunks) this.received(chunk);
    callback();
  }
  // Each response starts with one write beginning "HTTP/1.1".
  received(chunk) {
    const text = typeof chunk === 'string' ? chunk : chunk.toString('latin1', 0, 8);
    if (!text.startsWith('HTTP/1.1')) return;
    done++;
    if (done === wanted) finish();
    ready.push(this);
    if (!scheduled) {
      scheduled = true;
      setImmediate(next);
    }
  }
  setTimeout() {
    return this;
  }
  setNoDelay() {
    return this;
  }
  setKeepAlive() {
    return this;
  }
}

function next() {
  scheduled = false;
  const connections = ready;
  ready = [];
  for (const connection of connections) {
    if (sent < wanted) {
      sent++;
      connection.push(request);
    }
  }
}

const connections = Array.from({ length: 50 }, () => new Connection());
for (const connection of connections) server.emit('connection', connection);
await new Promise((resolve) => {
  finish = resolve;
  for (const connection of connections) {
    sent++;
    connection.push(request);
  }
});
process.exit(0);
