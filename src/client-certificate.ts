/** Client certificate details, as much as the runtime gives. */
export interface ClientCertificate {
  subject?: string | Record<string, unknown>;
  issuer?: string | Record<string, unknown>;
  serialNumber?: string;
  fingerprint?: string;
  validFrom?: string;
  validTo?: string;
  /** The PEM text of the certificate, when the runtime passes it. */
  pem?: string;
  [key: string]: unknown;
}
