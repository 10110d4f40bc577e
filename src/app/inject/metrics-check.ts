/**
 * What a custom metric call may be (docs/aws-lambda.md, "Metrics"): the checks each call of the
 * injectable `metrics` makes, on Lambda and off it alike, so a mistake throws where it is made
 * during development rather than only once metrics are on, as a 500 on every request.
 */

import { METRIC_UNITS } from '../../metrics.js';

export { METRIC_UNITS, type MetricUnit } from '../../metrics.js';

const UNITS: ReadonlySet<string> = new Set(METRIC_UNITS);

/** Names the Lambda adapter writes itself; a handler cannot reuse them. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  'Latency',
  'Count',
  '4XXError',
  '5XXError',
  'service',
  'method',
  'route',
  'statusCode',
  'path',
  'requestId',
  'awsRequestId',
  '_aws',
]);

// CloudWatch's limits on names and dimensions: dimension names are at most 250 characters in
// EMF, dimension values at most 1,024.
const MAX_NAME_LENGTH = 255;
const MAX_DIMENSION_NAME_LENGTH = 250;
const MAX_DIMENSION_VALUE_LENGTH = 1024;
/** Printable ASCII only: CloudWatch refuses other characters, control characters included, in dimensions. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const NON_WHITESPACE = /\S/;
// An EMF line is at most 1 MB, as a CloudWatch Logs event (the EMF specification); one property
// is kept to a quarter of that in JSON characters (at most 3 UTF-8 bytes each), room for the rest.
const MAX_PROPERTY_LENGTH = 256 * 1024;
const LARGEST_VALUE = 2 ** 360;
const SMALLEST_VALUE = 2 ** -360;

function checkName(kind: string, name: unknown, maxLength = MAX_NAME_LENGTH): string {
  if (typeof name !== 'string' || name === '' || name.length > maxLength) {
    throw new TypeError(
      `${kind} name must be a string of 1 to ${maxLength} characters, got ${JSON.stringify(name)}`,
    );
  }
  if (RESERVED_NAMES.has(name)) {
    throw new TypeError(`${kind} name "${name}" is reserved for restmachine's own metrics`);
  }
  return name;
}

/**
 * Whether CloudWatch takes `text` as a dimension name or value: printable ASCII with at least
 * one character that is not whitespace. A line with any other dimension is dropped whole.
 */
export function isDimensionText(text: string): boolean {
  return PRINTABLE_ASCII.test(text) && NON_WHITESPACE.test(text);
}

/** Checks one `addMetric(name, unit, value)` call. */
export function checkMetric(name: unknown, unit: unknown, value: unknown): void {
  checkName('Metric', name);
  // CloudWatch's rules for a metric name are its dimensions' (printable ASCII, not all spaces).
  if (!isDimensionText(name as string)) {
    throw new TypeError(
      `Metric name ${JSON.stringify(name)} must be printable ASCII with a non-space character`,
    );
  }
  if (typeof unit !== 'string' || !UNITS.has(unit)) {
    throw new TypeError(
      `Unknown metric unit ${JSON.stringify(unit)}; expected one of ${METRIC_UNITS.join(', ')}`,
    );
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new TypeError(`Metric "${String(name)}" needs a finite number, got ${String(value)}`);
  }
  // CloudWatch refuses values too large or too small (MetricDatum: -2^360 to 2^360).
  const size = Math.abs(value);
  if (size > LARGEST_VALUE || (size !== 0 && size < SMALLEST_VALUE)) {
    throw new TypeError(
      `Metric "${String(name)}" is ${value}, outside the range CloudWatch takes (2^-360 to 2^360 in magnitude)`,
    );
  }
}

/** Checks one `addDimension(name, value)` call. */
export function checkDimension(name: unknown, value: unknown): void {
  checkName('Dimension', name, MAX_DIMENSION_NAME_LENGTH);
  const text = name as string;
  if (!isDimensionText(text) || text.startsWith(':')) {
    throw new TypeError(
      `Dimension name ${JSON.stringify(text)} must be printable ASCII with a non-space character, not starting with ":"`,
    );
  }
  if (
    typeof value !== 'string' ||
    value.length > MAX_DIMENSION_VALUE_LENGTH ||
    !isDimensionText(value)
  ) {
    throw new TypeError(
      `Dimension "${text}" needs a value of 1 to ${MAX_DIMENSION_VALUE_LENGTH} printable ASCII characters, not all spaces, got ${JSON.stringify(value)}`,
    );
  }
}

/** Checks one `addProperty(name, value)` call: a name, and a value JSON can encode. */
export function checkProperty(name: unknown, value: unknown): void {
  checkName('Property', name);
  // Encoded once here, cheap for the few properties a handler adds: a value JSON cannot encode
  // (a BigInt, a cycle, a function) would otherwise cost the whole line, built-in metrics too.
  let encoded: string | undefined;
  try {
    encoded = JSON.stringify(value);
  } catch (error) {
    throw new TypeError(`Property "${String(name)}" cannot be encoded as JSON: ${String(error)}`);
  }
  if (encoded === undefined) {
    throw new TypeError(`Property "${String(name)}" cannot be encoded as JSON: ${typeof value}`);
  }
  if (encoded.length > MAX_PROPERTY_LENGTH) {
    throw new RangeError(
      `Property "${String(name)}" is ${encoded.length} characters of JSON, over the ${MAX_PROPERTY_LENGTH} an EMF line leaves it`,
    );
  }
}
