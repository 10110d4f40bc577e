/**
 * The client certificate of a TLS connection, as `request.clientCert`.
 */
import type { TLSSocket } from 'node:tls';
import type { ClientCertificate } from '../../request.js';

// One certificate per connection: keep-alive requests on the same socket reuse the mapping
// instead of asking OpenSSL again. A WeakMap lets the entry go with the socket.
const cache = new WeakMap<TLSSocket, ClientCertificate | null>();

function toPem(raw: Buffer): string {
  const base64 = raw.toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < base64.length; i += 64) lines.push(base64.slice(i, i + 64));
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

/**
 * The peer's certificate, or `undefined` when the client presented none.
 *
 * A certificate is reported even when it did not verify against the server's CAs (a server
 * with `requestCert: true, rejectUnauthorized: false` accepts such connections), so
 * `authorized` says whether it did: code that grants access on the strength of a certificate
 * must check it (RFC 8446 §4.4.2.4 leaves the decision to the server).
 */
export function clientCertificate(socket: TLSSocket): ClientCertificate | undefined {
  const known = cache.get(socket);
  if (known !== undefined) return known ?? undefined;
  const certificate = socket.getPeerCertificate(false);
  let mapped: ClientCertificate | null = null;
  // With no client certificate Node returns an empty object (or null once the socket closed).
  if (certificate !== null && certificate !== undefined && certificate.raw !== undefined) {
    mapped = {
      subject: { ...certificate.subject },
      issuer: { ...certificate.issuer },
      serialNumber: certificate.serialNumber,
      fingerprint: certificate.fingerprint256,
      validFrom: certificate.valid_from,
      validTo: certificate.valid_to,
      pem: toPem(certificate.raw),
      subjectAltName: certificate.subjectaltname,
      authorized: socket.authorized,
      authorizationError:
        socket.authorizationError === null || socket.authorizationError === undefined
          ? undefined
          : String(socket.authorizationError),
    };
  }
  cache.set(socket, mapped);
  return mapped ?? undefined;
}
