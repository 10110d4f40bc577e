/**
 * A subject or issuer name by attribute type, as Node's `getPeerCertificate()` gives it: an
 * attribute that repeats (two `OU`) holds its values in an array. Typed as `@types/node` types
 * that object, so Node's passes as it is; an attribute the certificate lacks reads `undefined`.
 *
 * @example
 * const name: DistinguishedName = { CN: 'alice', OU: ['Team', 'East'], O: 'Example' };
 */
export type DistinguishedName = Record<string, string | string[] | undefined>;

/** Client certificate details, as much as the runtime gives. */
export interface ClientCertificate {
  /** The subject's name; the same shape on every adapter (docs/node.md, docs/aws-lambda.md). */
  subject?: DistinguishedName;
  issuer?: DistinguishedName;
  serialNumber?: string;
  fingerprint?: string;
  validFrom?: string;
  validTo?: string;
  /** The PEM text of the certificate, when the runtime passes it. */
  pem?: string;
  [key: string]: unknown;
}
