/**
 * The encoders compression uses, loaded on the first response that is actually compressed:
 * `node:zlib` where the runtime has it (Node, Lambda, Bun, Deno), `CompressionStream` elsewhere.
 * Neither is reachable from the core's static imports, so an application whose routes never
 * compress never loads them, and a bundle for a runtime without `node:zlib` still loads.
 */
import type { Encoders } from './encoder-types.js';

export type { Chunks, CompressionLevels, ContentCoding, Encoders } from './encoder-types.js';

let loading: Promise<Encoders> | undefined;
let loaded: Encoders | undefined;

/** The encoders once loaded; `undefined` before the first compressed response. */
export function loadedEncoders(): Encoders | undefined {
  return loaded;
}

/** Loads the encoders (once): Node's zlib, or `CompressionStream` where there is no zlib. */
export function loadEncoders(): Promise<Encoders> {
  loading ??= import('./node-encoders.js')
    .then((module) => module.nodeEncoders())
    .catch(() => import('./web-encoders.js').then((module) => module.webEncoders()))
    .then((encoders) => {
      loaded = encoders;
      return encoders;
    });
  return loading;
}
