/**
 * The size of a buffered Lambda result against the payload limit of a synchronous invocation:
 * AWS refuses a larger response whole, and the client gets the gateway's 502 while the function
 * logs nothing (docs/aws-lambda.md, "Response size").
 */
import type { GatewayResult } from './events.js';

/** The most bytes a synchronous invocation's response payload may hold (6 MB). */
export const MAX_RESULT_BYTES = 6 * 1024 * 1024;

/**
 * The most bytes one UTF-16 unit of the body takes in the JSON payload: a control character is
 * written as a 6-byte `\u0000` escape (RFC 8259 §7), more than the 3 bytes of any UTF-8 character.
 */
const MOST_BYTES_PER_UNIT = 6;

/**
 * Room left for the rest of the payload (status, headers, cookies and the JSON around them) when
 * judging by the body alone: a body that with its headers could reach the limit is measured.
 */
const ENVELOPE_BYTES = 128 * 1024;

/**
 * The bytes `result` takes as the JSON payload Lambda sends, when that is over
 * {@link MAX_RESULT_BYTES}; `undefined` otherwise. Serialised only for a body that could be near
 * the limit at its worst case, never for the usual small answer.
 */
export function oversizedResult(result: GatewayResult): number | undefined {
  const body = (result as { body?: unknown }).body;
  if (
    typeof body !== 'string' ||
    body.length * MOST_BYTES_PER_UNIT + ENVELOPE_BYTES < MAX_RESULT_BYTES
  ) {
    return undefined;
  }
  const bytes = Buffer.byteLength(JSON.stringify(result));
  return bytes > MAX_RESULT_BYTES ? bytes : undefined;
}
