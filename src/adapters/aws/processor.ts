/**
 * What every event processor does: turn its kind of event into the parts of a Request, and a
 * Response into the result its integration accepts.
 */
import type { RequestInit } from '../../request.js';
import type { Response } from '../../response.js';
import type { ResultBody } from './body.js';
import type { EventKind } from './events.js';

/** Adapter settings a processor needs. */
export interface ProcessorSettings {
  /** A custom-domain mapping prefix removed from the path (`''` for none). */
  readonly basePath: string;
  /** Reports that an ALB single-value result could carry only the first of `count` cookies. */
  droppedCookies(count: number, requestId: string | undefined): void;
}

/** The parts of a request an event carries; the adapter adds the body and the context. */
export interface RequestParts extends Omit<RequestInit, 'body' | 'context'> {
  authorizer: Record<string, unknown> | undefined;
}

export interface EventProcessor<E = unknown, R = unknown> {
  readonly kind: EventKind;
  requestParts(event: E, settings: ProcessorSettings): RequestParts;
  result(response: Response, body: ResultBody, head: boolean, settings: ProcessorSettings): R;
}
