/**
 * Request ids (docs/http-semantics.md, "Request ids"). A client's `X-Request-ID` is trusted only
 * when well-formed; otherwise the request gets a fresh UUID.
 */
import { MultiValueHeaders } from '../../http/headers.js';
import { type Request, recordRequestId } from '../../request.js';

const REQUEST_ID = /^[\w.-]{1,128}$/;

// Fresh ids are version-4-formatted UUIDs made of 74 random bits drawn once per process and a
// 48-bit counter: unique within the process, distinct across processes with overwhelming
// probability, and about twenty times cheaper than a random UUID per request. Request ids
// identify requests in logs; they are not secrets, so predictability within a process is fine.
// The random bits are drawn at the first id, not when the module loads: a Cloudflare Worker may
// not generate random values in its global scope, and its bundle evaluates this module at
// startup (docs/fetch.md).
let prefix = '';
let counter = 0;

// The last two hex digits come from a table; the rest of the id changes every 256 requests.
const HEX_PAIRS = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
let stem = '';

/** A fresh request id in UUID form. */
export function freshRequestId(): string {
  counter = (counter + 1) % 0x1000000000000;
  let low = counter & 0xff;
  if (low === 0 || stem === '') {
    if (prefix === '') {
      prefix = crypto.randomUUID().slice(0, 24);
      counter = Math.floor(Math.random() * 0x1000000);
      low = counter & 0xff;
    }
    stem =
      prefix +
      Math.floor(counter / 256)
        .toString(16)
        .padStart(10, '0');
  }
  return stem + (HEX_PAIRS[low] as string);
}

/** The client's id when it is well-formed (`^[\w.-]{1,128}$`), else a fresh one. */
export function requestIdFor(sent: string | undefined): string {
  return sent !== undefined && REQUEST_ID.test(sent) ? sent : freshRequestId();
}

/**
 * Gives `request` its id, once: the client's `X-Request-ID` when well-formed, else a fresh one.
 * Sent on two lines, the field is their list (RFC 9110 §5.3), which is not one id, on every
 * adapter alike (a Fetch runtime joins them before the library sees them).
 */
export function assignRequestId(request: Request): void {
  if (request.requestId !== undefined) return;
  const sent = MultiValueHeaders.getList(request.headers, 'x-request-id');
  recordRequestId(request, requestIdFor(sent));
}
