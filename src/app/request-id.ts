/**
 * Request ids (SPEC §12). A client's `X-Request-ID` is trusted only when well-formed; otherwise
 * the request gets a fresh UUID.
 */

const REQUEST_ID = /^[\w.-]{1,128}$/;

// Fresh ids are version-4-formatted UUIDs made of 74 random bits drawn once per process and a
// 48-bit counter: unique within the process, distinct across processes with overwhelming
// probability, and about twenty times cheaper than a random UUID per request. Request ids
// identify requests in logs; they are not secrets, so predictability within a process is fine.
const PREFIX = (() => {
  const random = crypto.randomUUID();
  return random.slice(0, 24);
})();
let counter = Math.floor(Math.random() * 0x1000000);

/** A fresh request id in UUID form. */
export function freshRequestId(): string {
  counter = (counter + 1) % 0x1000000000000;
  return PREFIX + counter.toString(16).padStart(12, '0');
}

/** The client's id when it is well-formed (`^[\w.-]{1,128}$`), else a fresh one. */
export function requestIdFor(sent: string | undefined): string {
  return sent !== undefined && REQUEST_ID.test(sent) ? sent : freshRequestId();
}
