/**
 * What a route's body names take, compiled once per routing table: the parsers `parsedBody`
 * chooses from and the `Accept` of its 415 answers (RFC 9110 §15.5.16).
 */
import { SetupError } from '../../errors.js';
import {
  type BodyParser,
  type CompiledParser,
  FORM_MEDIA_TYPE,
  JSON_MEDIA_TYPE,
} from '../inject/body-parsers.js';
import type { GetterCompiler, PathParamPositions } from '../inject/getters.js';
import type { Registry } from '../types.js';
import {
  MULTIPART_MEDIA_TYPE,
  type MultipartLimits,
  multipartLimits,
  withBodyLimit,
} from '../uploads/limits.js';
import type { Route } from './route.js';
import type { Router } from './router.js';

export interface RouteBodies {
  /** Set when the route reads `parsedBody`: the route's, then its routers' inside out. */
  parsers: readonly CompiledParser[] | undefined;
  /** The media types the route reads, for `Accept` (and `Accept-Patch`); `*\/*` for any. */
  accept: string;
  /** The multipart limits of a route that takes uploads (docs/uploads.md). */
  uploads: MultipartLimits | undefined;
  /**
   * The same, when the route set limits or a `bodyLimit` of its own (its getters are then its
   * own).
   */
  ownUploads: MultipartLimits | undefined;
  /** Whether the handler reaches `jsonBody` (itself or through a validator of it). */
  readsJson: boolean;
}

const NONE: ReadonlySet<string> = new Set();

/** The parsers registered on `holder` by `accepts()`, in registration order. */
export function parsersOf(holder: { settings: Record<string, unknown> }): BodyParser[] {
  const own = holder.settings.accepts as Map<string, BodyParser> | undefined;
  return own === undefined ? [] : [...own.values()];
}

/** Compiles the body side of `route`, mounted in `routers` (outermost first). */
export function compileRouteBodies(
  compiler: GetterCompiler,
  route: Route<Registry>,
  routers: ReadonlyArray<Router<Registry>>,
  label: string,
  params: PathParamPositions,
): RouteBodies {
  const reached = compiler.reach(route.handler.names);
  const reads = (source: string): boolean => {
    if (reached.has(source)) return true;
    for (const name of reached) {
      const binding = compiler.bindings.get(name);
      if (binding?.kind === 'schema' && binding.source === source) return true;
    }
    return false;
  };
  const types: string[] = [];
  const readsJson = reads('jsonBody');
  if (readsJson) types.push(JSON_MEDIA_TYPE);
  // `files` takes an urlencoded form too (it has no files), as `formBody` does.
  if (reads('formBody') || reads('files')) types.push(FORM_MEDIA_TYPE);
  const streamed = reads('parts');
  if (streamed && (reads('files') || reads('formBody'))) {
    throw new SetupError(
      'INVALID_HANDLER',
      `${label}: "parts" streams the body, so the route cannot also read "files" or "formBody"`,
    );
  }
  const takesUploads = streamed || reads('files') || reads('formBody');
  if (takesUploads) types.push(MULTIPART_MEDIA_TYPE);
  const own = route.settings.multipart;
  // A route's own bodyLimit() is the default of its fieldsSize, as the application's is of the
  // application's: limits of its own then differ from the application's.
  const bodyLimit = route.settings.bodyLimit as number | undefined;
  const base = withBodyLimit(compiler.multipart, bodyLimit);
  const uploads = takesUploads ? multipartLimits(own, label, base) : undefined;
  let parsers: CompiledParser[] | undefined;
  if (reached.has('parsedBody')) {
    parsers = [];
    const levels = [route, ...[...routers].reverse()];
    for (const level of levels) {
      for (const parser of parsersOf(level)) {
        const where = `${label} (the parser for ${parser.mediaType})`;
        const getters = compiler.compile(parser.injectable.names, where, { params, extras: NONE });
        parsers.push({ ...parser, getters });
        if (!types.includes(parser.mediaType)) types.push(parser.mediaType);
      }
    }
  }
  return {
    parsers,
    accept: types.length === 0 ? '*/*' : types.join(', '),
    uploads,
    ownUploads: own === undefined && bodyLimit === undefined ? undefined : uploads,
    readsJson,
  };
}
