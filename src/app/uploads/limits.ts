/**
 * The limits of `multipart/form-data` bodies (docs/uploads.md): what `new RestApplication({
 * multipart })` and `route.multipart()` take, checked at registration, with the defaults. This
 * module is part of the core and loads no parser; the parser comes with `./parse.ts`, imported
 * only when a multipart body is read.
 */
import { SetupError } from '../../errors.js';
import { mediaTypeEssence } from '../../http/media-type.js';

export const MULTIPART_MEDIA_TYPE = 'multipart/form-data';

const KiB = 1024;
const MiB = 1024 * KiB;

/** The limits of one upload; every field is optional where they are given. */
export interface MultipartLimits {
  /** The largest file, in bytes (default 10 MiB). */
  fileSize: number;
  /** The most files (default 10). */
  files: number;
  /** The most text fields (default 100). */
  fields: number;
  /** The most parts, files and fields together (default 110). */
  parts: number;
  /** The largest text field, in bytes (default 1 MiB, the application's default `bodyLimit`). */
  fieldSize: number;
  /**
   * The most bytes of all text fields together, the bytes `formBody` holds in memory (default:
   * the route's `bodyLimit`, else the application's, 1 MiB unless set: what an urlencoded form
   * may hold).
   */
  fieldsSize: number;
  /**
   * Files larger than this, in bytes, are written to a temporary file instead of being kept in
   * memory, where there is a filesystem (default 1 MiB).
   */
  spillThreshold: number;
  /** Where temporary files go: a fresh directory is made inside it per request (`os.tmpdir()`). */
  tmpDir: string | undefined;
}

/** What `multipart` options take: any of the limits; one given `undefined` is left as it is. */
export type MultipartOptions = {
  [Limit in keyof MultipartLimits]?: MultipartLimits[Limit] | undefined;
};

export const DEFAULT_MULTIPART_LIMITS: Readonly<MultipartLimits> = Object.freeze({
  fileSize: 10 * MiB,
  files: 10,
  fields: 100,
  parts: 110,
  fieldSize: MiB,
  fieldsSize: MiB,
  spillThreshold: MiB,
  tmpDir: undefined,
});

/**
 * What one part may carry besides its content: the boundary line and its headers. A header
 * block over half of it, or over PART_HEADER_LINES lines, is refused (header-blocks.ts), so the
 * bound below holds for any body that is read.
 */
export const PART_OVERHEAD = 16 * KiB;

/** The most bytes of a part's delimiter line and headers, together. */
export const PART_HEADER_BYTES = PART_OVERHEAD / 2;

/** The most header lines of one part (a form's parts carry two or three). */
export const PART_HEADER_LINES = 32;

const COUNTS = [
  'fileSize',
  'files',
  'fields',
  'parts',
  'fieldSize',
  'fieldsSize',
  'spillThreshold',
] as const;

/** Checks `options` (from `label`) and lays them over `base`. */
export function multipartLimits(
  options: unknown,
  label: string,
  base: Readonly<MultipartLimits> = DEFAULT_MULTIPART_LIMITS,
): MultipartLimits {
  if (options === undefined) return base;
  if (options === null || typeof options !== 'object') {
    throw new SetupError('INVALID_OPTION', `${label} must be an object of limits`);
  }
  const given = options as Record<string, unknown>;
  const out: MultipartLimits = { ...base };
  for (const key of Object.keys(given)) {
    const value = given[key];
    if (key !== 'tmpDir' && !(COUNTS as readonly string[]).includes(key)) {
      throw new SetupError(
        'INVALID_OPTION',
        `${label} has no limit ${JSON.stringify(key)}; known: ${[...COUNTS, 'tmpDir'].join(', ')}`,
      );
    }
    // A limit given as undefined is left as it is, as an option given undefined is elsewhere.
    if (value === undefined) continue;
    if (key === 'tmpDir') {
      if (typeof value !== 'string' || value === '') {
        throw new SetupError('INVALID_OPTION', `${label}.tmpDir must be a directory path`);
      }
      out.tmpDir = value;
    } else {
      if (!(typeof value === 'number' && value >= 0 && !Number.isNaN(value))) {
        throw new SetupError(
          'INVALID_OPTION',
          `${label}.${key} must be a number >= 0, got ${String(value)}`,
        );
      }
      out[key as (typeof COUNTS)[number]] = value;
    }
  }
  return out;
}

/**
 * `base` with `fieldsSize` following a `bodyLimit` (the application's, or a route's own): an
 * urlencoded form may hold that much, so the text fields of a multipart one may too. A
 * `fieldsSize` given with the limits is laid over it.
 */
export function withBodyLimit(
  base: Readonly<MultipartLimits>,
  bodyLimit: number | undefined,
): Readonly<MultipartLimits> {
  return bodyLimit === undefined ? base : { ...base, fieldsSize: bodyLimit };
}

/**
 * The most bytes a multipart body within `limits` can take: every file and field at its
 * largest (the fields within `fieldsSize` together), each part with its delimiter and headers.
 * A declared Content-Length over it is 413 before anything is read, and reading stops there
 * too (a preamble cannot go on for ever).
 */
export function multipartTotal(limits: MultipartLimits): number {
  return (
    Math.min(limits.files, limits.parts) * limits.fileSize +
    Math.min(Math.min(limits.fields, limits.parts) * limits.fieldSize, limits.fieldsSize) +
    (limits.parts + 1) * PART_OVERHEAD
  );
}

/** Whether a request's Content-Type is `multipart/form-data`. */
export function isMultipart(contentType: string | undefined): boolean {
  return contentType !== undefined && mediaTypeEssence(contentType) === MULTIPART_MEDIA_TYPE;
}
