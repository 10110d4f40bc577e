/**
 * A registered route, and the options that chain on it.
 */
import type { HTTPMethod } from '../http/methods.js';
import { bumpGeneration } from './generation.js';
import { describeInjectable, type Injectable } from './parameters.js';
import type { Registry, Renderer } from './types.js';

/** A route object: returned by every registration call, with route-level options. */
export class Route<Deps extends Registry = Registry> {
  readonly method: HTTPMethod;
  readonly path: string;
  readonly handler: Injectable;
  /** Renderers for this route only, by media type, in registration order. */
  readonly renderers = new Map<string, Injectable>();
  /** Extensions of later features (conditional providers, CORS, CSP) keyed by feature. */
  readonly settings: Record<string, unknown> = {};

  constructor(method: HTTPMethod, path: string, handler: Injectable) {
    this.method = method;
    this.path = path;
    this.handler = handler;
  }

  /**
   * Adds a renderer for `mediaType` to this route; it wins over the application's for the
   * same type.
   *
   * @example
   * app.get('/report', () => data).provides('text/csv', ({ result }) => toCsv(result));
   */
  provides(mediaType: string, renderer: Renderer<Deps>): this {
    this.renderers.set(mediaType, describeInjectable(renderer, `Renderer for ${mediaType}`));
    bumpGeneration();
    return this;
  }
}
