/**
 * `compress(options)` on the application, a router or a route (docs/streams.md, "Compression"):
 * the options, checked and compiled once at registration.
 */
import { SetupError } from '../../errors.js';
import { knownOptions } from '../options.js';
import type { CompressionLevels, ContentCoding } from './encoders.js';

/** Options of `compress()`. */
export interface CompressOptions {
  /**
   * The smallest body compressed, in bytes (default 1024). A stream of unknown length is
   * compressed whatever its size.
   */
  threshold?: number;
  /**
   * The codings offered, in the server's order of preference for equal client weights
   * (default `['br', 'zstd', 'gzip']`); zstd is used only where the runtime has it.
   */
  encodings?: readonly ContentCoding[];
  /**
   * The media types compressed, replacing the default list: `type/subtype`, `type/*`, or
   * `*\/*+suffix` for a structured syntax suffix (`*\/*+json`).
   */
  types?: readonly string[];
  /**
   * Compression levels by coding (gzip 6, Brotli 4 and zstd 3 by default): gzip -1 to 9,
   * Brotli 0 to 11, zstd 1 to 19; another level is a SetupError here.
   */
  levels?: CompressionLevels;
}
const COMPRESS_OPTIONS = Object.keys({
  threshold: true,
  encodings: true,
  types: true,
  levels: true,
} satisfies Record<keyof CompressOptions, true>);

/** `compress()` as the pipeline uses it. */
export interface CompiledCompression {
  readonly threshold: number;
  readonly encodings: readonly ContentCoding[];
  /** Whether a media type's essence (lower case, no parameters) is compressed. */
  readonly compressible: (essence: string) => boolean;
  readonly levels: CompressionLevels;
}

/**
 * Types that shrink when compressed. Images, audio, video and archives are compressed already;
 * SVG, JSON and XML documents are text whatever their suffix.
 */
export const DEFAULT_COMPRESSIBLE_TYPES: readonly string[] = [
  'text/*',
  '*/*+json',
  '*/*+xml',
  '*/*+yaml',
  'application/json',
  'application/javascript',
  'application/ecmascript',
  'application/xml',
  'application/yaml',
  'application/x-ndjson',
  'application/x-www-form-urlencoded',
  'application/graphql',
  'application/wasm',
  'application/vnd.ms-fontobject',
  'font/otf',
  'font/ttf',
  'image/bmp',
  'image/x-icon',
  'image/vnd.microsoft.icon',
];

const CODINGS: readonly ContentCoding[] = ['br', 'zstd', 'gzip'];
/**
 * The levels each encoder takes (docs/streams.md, "Compression"). Checked here because zlib
 * only objects once a response is compressed, and Brotli and zstd take a level out of range
 * without a word. gzip is zlib's -1 (its default, 6) to 9; Brotli's quality is 0 to 11; zstd
 * stops at 19, as its own command line does without `--ultra`: levels 20 to 22 keep a 32 to
 * 128 MiB window per stream, paid for every response in flight.
 */
const LEVEL_RANGES: Readonly<Record<ContentCoding, readonly [lowest: number, highest: number]>> = {
  gzip: [-1, 9],
  br: [0, 11],
  zstd: [1, 19],
};
const TYPE_PATTERN =
  /^(?:\*\/\*\+[a-z0-9!#$&^_.-]+|[a-z0-9!#$&^_.+-]+\/(?:\*|[a-z0-9!#$&^_.+-]+))$/;

function invalid(message: string): SetupError {
  return new SetupError('INVALID_OPTION', `compress(): ${message}`);
}

/** A test of media type essences against `types`, built once. */
function typeTest(types: readonly string[]): (essence: string) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  const suffixes: string[] = [];
  for (const raw of types) {
    const type = typeof raw === 'string' ? raw.trim().toLowerCase() : '';
    if (!TYPE_PATTERN.test(type)) {
      throw invalid(
        `types must be media types, "type/*" or "*/*+suffix", got ${JSON.stringify(raw)}`,
      );
    }
    if (type.startsWith('*/*+')) suffixes.push(type.slice(3));
    else if (type.endsWith('/*')) prefixes.push(type.slice(0, -1));
    else exact.add(type);
  }
  return (essence) =>
    exact.has(essence) ||
    prefixes.some((prefix) => essence.startsWith(prefix)) ||
    suffixes.some((suffix) => essence.endsWith(suffix));
}

const DEFAULT_TEST = typeTest(DEFAULT_COMPRESSIBLE_TYPES);

/** Checks and compiles `compress()` options; a misspelt one is a SetupError at registration. */
export function compileCompression(options: CompressOptions = {}): CompiledCompression {
  if (options === null || typeof options !== 'object') throw invalid('options must be an object');
  knownOptions('compress()', options, COMPRESS_OPTIONS);
  const threshold = options.threshold ?? 1024;
  if (typeof threshold !== 'number' || !(threshold >= 0)) {
    throw invalid(`threshold must be a number of bytes >= 0, got ${JSON.stringify(threshold)}`);
  }
  const encodings = options.encodings ?? CODINGS;
  if (
    !Array.isArray(encodings) ||
    encodings.length === 0 ||
    encodings.some((coding) => !CODINGS.includes(coding))
  ) {
    throw invalid(
      `encodings must list some of "br", "zstd", "gzip", got ${JSON.stringify(encodings)}`,
    );
  }
  const levels = options.levels ?? {};
  if (typeof levels !== 'object' || Array.isArray(levels)) {
    throw invalid(`levels must be an object, got ${JSON.stringify(levels)}`);
  }
  for (const [coding, level] of Object.entries(levels)) {
    if (
      !CODINGS.includes(coding as ContentCoding) ||
      typeof level !== 'number' ||
      !Number.isInteger(level)
    ) {
      throw invalid(
        `levels must map "br", "zstd" or "gzip" to an integer, got ${coding}: ${JSON.stringify(level)}`,
      );
    }
    const [lowest, highest] = LEVEL_RANGES[coding as ContentCoding];
    if (level < lowest || level > highest) {
      throw invalid(`levels.${coding} must be from ${lowest} to ${highest}, got ${level}`);
    }
  }
  return {
    threshold,
    encodings: [...new Set(encodings)],
    compressible: options.types === undefined ? DEFAULT_TEST : typeTest(options.types),
    levels: { ...levels },
  };
}

/** What `compress()` stores on a route or router: its compiled options, or `false` for off. */
export function compressSetting(
  options: CompressOptions | false | undefined,
): CompiledCompression | false {
  return options === false ? false : compileCompression(options);
}
