/**
 * A logger that keeps every line it is given, for tests that assert what the library logged.
 */
import type { LogFields } from '../../src/index.js';

export function recordingLogger() {
  const lines: Array<{ message: string; fields?: LogFields }> = [];
  const record = (message: string, fields?: LogFields) => lines.push({ message, fields });
  const logger = { debug: record, info: record, warn: record, error: record };
  /** Every line's error, or its message when it has none, one per line. */
  const logged = () => lines.map((line) => String(line.fields?.error ?? line.message)).join('\n');
  return { lines, logger, logged };
}
