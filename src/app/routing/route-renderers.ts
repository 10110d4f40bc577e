/**
 * A route's renderers, compiled and ordered for negotiation: JSON first, then the route's own,
 * then the application's (docs/application.md, "Content negotiation").
 */
import type { MediaType } from '../../http/media-type.js';
import {
  BUILTIN_RENDERERS,
  type CompiledRenderer,
  rendererMediaType,
} from '../features/renderers.js';
import type { GetterCompiler, PathParamPositions } from '../inject/getters.js';
import type { Injectable } from '../inject/handler-parameters.js';
import type { Registry } from '../types.js';
import type { Route } from './route.js';

/** What the ordering reads from the application. */
export interface RendererSource {
  readonly appRenderers: ReadonlyMap<string, Injectable>;
  /** `renderers: 'json'`: HTML and text only where a route or the application provides them. */
  readonly jsonOnly: boolean;
}

const RESULT = new Set(['result']);
function compileRenderer(
  compiler: GetterCompiler,
  injectable: Injectable | undefined,
  builtin: ((result: unknown) => string) | undefined,
  contentType: string,
  label: string,
  params: PathParamPositions,
): CompiledRenderer {
  // Matched by what it sends: `Accept: text/html; charset=utf-8` takes the built-in HTML.
  const media: MediaType = rendererMediaType(contentType);
  return {
    ...media,
    contentType,
    builtin,
    fn: injectable?.fn,
    names: injectable?.names ?? [],
    getters: injectable
      ? compiler.compile(injectable.names, label, { params, extras: RESULT })
      : [],
  };
}

/** Orders renderers: JSON first, then the route's own, then the application's
 * (docs/application.md, "Content negotiation"). */
export function orderRenderers(
  compiler: GetterCompiler,
  source: RendererSource,
  route: Route<Registry> | undefined,
  label: string,
  params: PathParamPositions,
): CompiledRenderer[] {
  const entries = new Map<string, CompiledRenderer>();
  const essence = (type: string) => {
    const media = rendererMediaType(type);
    return `${media.type}/${media.subtype}`;
  };
  // The route's word on JSON wins, even one without a renderer (its handler sends JSON itself).
  const routeJson = route?.renderers.has('application/json') === true;
  const jsonOverride = routeJson
    ? route?.renderers.get('application/json')
    : source.appRenderers.get('application/json');
  const json = BUILTIN_RENDERERS[0] as (typeof BUILTIN_RENDERERS)[number];
  entries.set(
    'application/json',
    compileRenderer(
      compiler,
      jsonOverride,
      routeJson || jsonOverride ? undefined : json.render,
      json.contentType,
      `Renderer for application/json (${label})`,
      params,
    ),
  );
  const add = (type: string, injectable: Injectable | undefined) => {
    const key = essence(type);
    if (entries.has(key)) return;
    entries.set(
      key,
      compileRenderer(
        compiler,
        injectable,
        undefined,
        type,
        `Renderer for ${type} (${label})`,
        params,
      ),
    );
  };
  if (route !== undefined) for (const [type, injectable] of route.renderers) add(type, injectable);
  for (const builtin of BUILTIN_RENDERERS.slice(1)) {
    const override = source.appRenderers.get(builtin.mediaType);
    if (override !== undefined) add(builtin.mediaType, override);
    else if (!source.jsonOnly && !entries.has(builtin.mediaType)) {
      entries.set(
        builtin.mediaType,
        compileRenderer(compiler, undefined, builtin.render, builtin.contentType, label, params),
      );
    }
  }
  for (const [type, injectable] of source.appRenderers) add(type, injectable);
  return [...entries.values()];
}

export function textFirst(renderers: readonly CompiledRenderer[]): CompiledRenderer[] {
  const text = renderers.find((r) => r.type === 'text' && r.subtype === 'plain');
  return text === undefined ? renderers.slice() : [text, ...renderers.filter((r) => r !== text)];
}
