/**
 * CloudWatch Embedded Metric Format: one JSON object per line on stdout, which the Lambda
 * runtime ships to CloudWatch Logs and CloudWatch turns into metrics, with no API call and no
 * extra latency.
 */
import { knownOptions } from '../../../app/options.js';
import { DataRecord } from '../../../http/data-record.js';
import type { MetricsEntry, MetricsPublisher } from './entry.js';

/** The EMF document of one entry: the `_aws` metadata plus every value at the root. */
export interface EmfDocument {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: Array<{
      Namespace: string;
      Dimensions: string[][];
      Metrics: Array<{ Name: string; Unit: string; StorageResolution?: 1 }>;
    }>;
  };
  [member: string]: unknown;
}

/**
 * Builds the EMF document for `entry`. Properties go first, then dimension values, then metric
 * values, so a root member a directive names is always the value it means.
 *
 * @example
 * // A publisher that hands EMF documents to a log shipper instead of stdout:
 * const publisher: MetricsPublisher = { publish: (entry) => shipper.send(toEmfDocument(entry)) };
 */
export function toEmfDocument(entry: MetricsEntry): EmfDocument {
  // No prototype: a name such as `__proto__` becomes a member like any other, not a prototype.
  const document = new DataRecord() as EmfDocument;
  document._aws = {
    Timestamp: entry.timestamp,
    CloudWatchMetrics: [
      {
        Namespace: entry.namespace,
        Dimensions: entry.dimensions.map((set) => Object.keys(set)),
        Metrics: entry.metrics.map((metric) =>
          // StorageResolution 60 is the default and is left out, as the EMF specification allows.
          entry.resolution === 1
            ? { Name: metric.name, Unit: metric.unit, StorageResolution: 1 as const }
            : { Name: metric.name, Unit: metric.unit },
        ),
      },
    ],
  };
  for (const name of Object.keys(entry.properties)) document[name] = entry.properties[name];
  for (const set of entry.dimensions) {
    for (const name of Object.keys(set)) document[name] = set[name];
  }
  for (const metric of entry.metrics) document[metric.name] = metric.value;
  return document;
}

/** Options of {@link EmfMetricsPublisher}. */
export interface EmfMetricsPublisherOptions {
  /** Where each line goes (without its newline); stdout by default. */
  write?: (line: string) => void;
}
const EMF_PUBLISHER_OPTIONS = Object.keys({ write: true } satisfies Record<
  keyof EmfMetricsPublisherOptions,
  true
>);

/**
 * The default publisher: writes each entry as one EMF line to stdout.
 *
 * @example
 * const lines: string[] = [];
 * new CloudGatewayAdapter(app, { metricsPublisher: new EmfMetricsPublisher({ write: (line) => lines.push(line) }) });
 */
export class EmfMetricsPublisher implements MetricsPublisher {
  readonly #write: (line: string) => void;

  constructor(options: EmfMetricsPublisherOptions = {}) {
    knownOptions('new EmfMetricsPublisher()', options, EMF_PUBLISHER_OPTIONS);
    // One write per line: on Lambda stdout is a pipe, whose writes are synchronous on Linux, so
    // the line is out before the invocation returns.
    this.#write = options.write ?? ((line) => process.stdout.write(`${line}\n`));
  }

  /**
   * Writes the line. A property JSON cannot encode (a value changed after `addProperty` checked
   * it) is left out, and so are the largest properties of a line over {@link MAX_LINE_BYTES}, so
   * the metrics still go out; the error then thrown names them, and the adapter logs it
   * (docs/aws-lambda.md, "Metrics").
   */
  publish(entry: MetricsEntry): void {
    const document = toEmfDocument(entry);
    let line: string;
    let problem: Error | undefined;
    try {
      line = JSON.stringify(document);
    } catch (error) {
      const dropped = Object.keys(entry.properties).filter((name) => !encodable(document[name]));
      for (const name of dropped) delete document[name];
      // Throws the first error again when something else failed.
      if (dropped.length === 0) throw error;
      line = JSON.stringify(document);
      problem = new TypeError(
        `Metrics properties ${dropped.join(', ')} cannot be encoded as JSON and were left out of the EMF line`,
        { cause: error },
      );
    }
    // A UTF-16 unit is at most 3 UTF-8 bytes: a line as short as the usual one is not counted.
    if (line.length * 3 > MAX_LINE_BYTES && Buffer.byteLength(line) > MAX_LINE_BYTES) {
      const dropped = leaveOutLargest(entry, document, Buffer.byteLength(line));
      line = JSON.stringify(document);
      problem = new RangeError(
        `The EMF line was over ${MAX_LINE_BYTES} bytes, which CloudWatch drops whole; metrics properties ${dropped.join(', ')} were left out`,
      );
    }
    this.#write(line);
    if (problem !== undefined) throw problem;
  }
}

/**
 * The EMF specification limits a document as a CloudWatch Logs event, to 1 MB; counted here in
 * decimal, below 1 MiB, to leave room for what the runtime adds to the event.
 */
const MAX_LINE_BYTES = 1_000_000;

/**
 * Deletes properties from `document`, the largest first, until it is within
 * {@link MAX_LINE_BYTES}; returns their names. Properties are all that can make a line that
 * large: metrics and dimensions are bounded in number and length (their checks in
 * `metrics-check.ts`), to about a third of it.
 */
function leaveOutLargest(entry: MetricsEntry, document: EmfDocument, bytes: number): string[] {
  const sizes = Object.keys(entry.properties).map((name) => ({
    name,
    // `"name":value,` as JSON.stringify writes the member.
    bytes:
      Buffer.byteLength(JSON.stringify(name)) +
      Buffer.byteLength(JSON.stringify(document[name]) ?? '') +
      2,
  }));
  sizes.sort((a, b) => b.bytes - a.bytes);
  const dropped: string[] = [];
  for (const size of sizes) {
    if (bytes <= MAX_LINE_BYTES) break;
    delete document[size.name];
    dropped.push(size.name);
    bytes -= size.bytes;
  }
  return dropped;
}

function encodable(value: unknown): boolean {
  try {
    JSON.stringify(value);
    return true;
  } catch {
    return false;
  }
}
