/**
 * The client address and protocol as a trusted proxy reports them (`X-Forwarded-For`,
 * `X-Forwarded-Proto`).
 *
 * These headers are plain request headers: any client can send them, so they mean something
 * only when a proxy we trust wrote them. With `trustProxy: n` we believe exactly the entries
 * the last `n` hops appended; everything to their left came from further away (possibly the
 * client itself) and is ignored.
 */
import type { MultiValueHeaders } from '../../http/headers.js';
import type { TrustProxy } from './types.js';

/** Every `X-Forwarded-For` entry in order, over all header lines (RFC 9110 §5.3 list rules). */
function forwardedFor(headers: MultiValueHeaders): string[] {
  const entries: string[] = [];
  for (const line of headers.getAll('x-forwarded-for')) {
    for (const part of line.split(',')) {
      const entry = part.trim();
      if (entry !== '') entries.push(entry);
    }
  }
  return entries;
}

/**
 * The original client's address: the socket's peer when nothing is trusted or the header is
 * absent, else the entry the trusted hops vouch for.
 */
export function forwardedAddress(
  headers: MultiValueHeaders,
  socketAddress: string | undefined,
  trust: TrustProxy,
): string | undefined {
  if (trust === false || trust === 0) return socketAddress;
  const entries = forwardedFor(headers);
  if (entries.length === 0) return socketAddress;
  if (trust === true) return entries[0];
  // With n trusted proxies the n-th entry from the right was written by the outermost trusted
  // proxy about the peer it saw; when there are fewer entries, the left-most is the best known.
  const index = entries.length - trust;
  return entries[Math.max(index, 0)];
}

/**
 * The protocol the client used: `https` or `http` from the trusted `X-Forwarded-Proto` (the
 * right-most value a trusted hop wrote), else from the socket.
 */
export function forwardedProtocol(
  headers: MultiValueHeaders,
  socketProtocol: 'http' | 'https',
  trust: TrustProxy,
): 'http' | 'https' {
  if (trust === false || trust === 0) return socketProtocol;
  const values: string[] = [];
  for (const line of headers.getAll('x-forwarded-proto')) {
    for (const part of line.split(',')) values.push(part.trim().toLowerCase());
  }
  if (values.length === 0) return socketProtocol;
  const index = trust === true ? 0 : Math.max(values.length - trust, 0);
  const value = values[index];
  // Anything but the two schemes a server can be reached with is ignored, not passed on.
  return value === 'https' || value === 'http' ? value : socketProtocol;
}
