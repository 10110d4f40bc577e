/**
 * Serves exactly N requests to one server over 50 in-memory keep-alive connections (no sockets,
 * no system calls), then exits. Run under `valgrind --tool=cachegrind` by instructions.sh.
 * Usage: node drive.mjs <server> <path> <requests> [servers module]
 * The path `POST` sends the benchmark's 1 KB JSON document to POST /echo instead of a GET.
 * Another servers module (the fourth argument) exports its `SERVERS` and may export the request
 * to send: `REQUEST` (the whole request, upload-servers.mjs), `REQUESTS` (one per path name,
 * notes-servers.mjs) or `HEADERS` (lines added to the GET, compress-servers.mjs). It is loaded
 * only when named, so the three scenarios run exactly as they always did.
 */
import { EventEmitter } from 'node:events';
import { Duplex } from 'node:stream';
import { ECHO_BODY, SERVERS as SIMPLE_SERVERS } from './servers.mjs';

// A server process constructs more than four kinds of EventEmitter (its server, sockets,
// requests and responses, the file handles of the ES modules it loads, its log streams), and V8
// then stores EventEmitter's fields through its generic path. Six kinds made here put every
// server in that state before it starts (`node --log-ic` shows it). Without them, a count moved
// by about 700 instructions with the number of module files a server loads after EventEmitter
// warmed up: one chunk more in dist/ added a fifth kind, a FileHandle, to restmachine's process.
const KINDS = Array.from({ length: 6 }, () => class extends EventEmitter {});
// Four rounds: V8 keeps no record of the first calls of a function (its feedback comes later).
for (let round = 0; round < 4; round++) for (const Kind of KINDS) new Kind();

const [, , name, path = '/', total = '20000', serversModule] = process.argv;
const servers = serversModule === undefined ? {} : await import(serversModule);
const SERVERS = servers.SERVERS ?? SIMPLE_SERVERS;
const create = SERVERS[name];
if (create === undefined)
  throw new Error(`unknown server ${name}: ${Object.keys(SERVERS).join(', ')}`);
const server = await create();
const head = `Host: 127.0.0.1\r\nUser-Agent: wrk\r\nAccept: */*\r\n${servers.HEADERS ?? ''}`;
const request =
  servers.REQUEST ??
  Buffer.from(
    servers.REQUESTS?.[path] ??
      (path === 'POST'
        ? `POST /echo HTTP/1.1\r\n${head}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(ECHO_BODY)}\r\n\r\n${ECHO_BODY}`
        : `GET ${path} HTTP/1.1\r\n${head}\r\n`),
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
