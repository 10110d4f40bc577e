/**
 * The upload names (docs/uploads.md): `formBody` of a multipart request, `files` and `parts`.
 * This is the core's side: it recognises a multipart body, loads the parser by dynamic
 * `import()` the first time one is read, keeps one upload per request, and releases it when
 * the request is over (the pipeline calls `releaseUploadsAfter` for routes that take uploads).
 */
import { bodyCutShort, HttpError } from '../../errors.js';
import { MultiValueHeaders } from '../../http/headers.js';
import { mediaTypeEssence } from '../../http/media-type.js';
import { isStream, type Response } from '../../response.js';
import { FORM_MEDIA_TYPE, readFormBody, refuseContentCoding } from '../inject/body-parsers.js';
import type { RequestState } from '../inject/request-state.js';
import { requestSignal } from '../inject/signal.js';
import { isThenable } from '../thenable.js';
import { isMultipart, MULTIPART_MEDIA_TYPE, type MultipartLimits } from './limits.js';
import type { MultipartPart, UploadedFile } from './types.js';

// The key of a request's upload in its state's cache: no injectable name has a space.
const UPLOAD_KEY = ' upload';

/** A request's upload, collected or streamed, until it is released. */
interface Upload {
  value: Promise<unknown>;
  mode: 'collected' | 'streamed';
  release(reason?: unknown, answering?: object): Promise<void>;
}

type Opened = Pick<Upload, 'release'> & { value: Promise<unknown> | unknown };

function openUpload(
  state: RequestState,
  mode: Upload['mode'],
  open: (contentType: string) => Promise<Opened>,
): Promise<unknown> {
  try {
    refuseContentCoding(state.request);
  } catch (error) {
    return Promise.reject(error);
  }
  state.cache ??= new Map();
  const existing = state.cache.get(UPLOAD_KEY) as Upload | undefined;
  if (existing !== undefined) {
    if (existing.mode === mode) return existing.value;
    return Promise.reject(new Error('A request body is read either as parts or as files'));
  }
  const contentType = state.request.headers.get('content-type') as string;
  let opened: Opened | undefined;
  let releasedWith: { reason: unknown; answering: object | undefined } | undefined;
  const upload: Upload = {
    mode,
    value: open(contentType).then((result) => {
      opened = result;
      if (releasedWith !== undefined) {
        void result.release(releasedWith.reason, releasedWith.answering);
      }
      return result.value;
    }),
    release(reason, answering) {
      if (releasedWith !== undefined) return Promise.resolve();
      releasedWith = { reason, answering };
      return opened?.release(reason, answering) ?? Promise.resolve();
    },
  };
  state.cache.set(UPLOAD_KEY, upload);
  // An aborted request (client gone, requestTimeout) stops reading and drops what it kept. Its
  // body was cut short: a 400 as for any other body (docs/uploads.md), not an error of the
  // application; a timeout's 503 is answered without waiting for it.
  const signal = requestSignal(state);
  const abort = () => void upload.release(bodyCutShort());
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  return upload.value;
}

function collected(state: RequestState, limits: MultipartLimits) {
  return openUpload(state, 'collected', async (contentType) => {
    const { collectUpload } = await import('./collect.js');
    const collection = await collectUpload(state.request, contentType, limits);
    return { value: collection.result, release: collection.release };
  }) as Promise<{ fields: Record<string, string>; files: UploadedFile[] }>;
}

function contentType(state: RequestState): string | undefined {
  return MultiValueHeaders.getLower(state.request.headers, 'content-type');
}

// `expected`: what the name reads, as the 415's `Accept` lists it.
function unsupported(type: string | undefined, expected: string): HttpError {
  return new HttpError(
    415,
    type === undefined
      ? `Request body needs Content-Type: ${expected}`
      : `Unsupported Content-Type ${JSON.stringify(type)}; expected ${expected}`,
  );
}

/** `formBody`: the text fields of a multipart body, else the urlencoded form. */
export function readFormOrUpload(
  state: RequestState,
  limits: MultipartLimits,
): Promise<Record<string, string>> {
  if (!isMultipart(contentType(state))) return readFormBody(state.request);
  return collected(state, limits).then((upload) => upload.fields);
}

/** `files`: the files of a multipart body; an urlencoded form has none. */
export function readFiles(state: RequestState, limits: MultipartLimits): Promise<UploadedFile[]> {
  const type = contentType(state);
  if (isMultipart(type)) return collected(state, limits).then((upload) => upload.files);
  if (type !== undefined && mediaTypeEssence(type) === FORM_MEDIA_TYPE) return Promise.resolve([]);
  return Promise.reject(unsupported(type, `${FORM_MEDIA_TYPE} or ${MULTIPART_MEDIA_TYPE}`));
}

/** `parts`: the parts of a multipart body as they arrive. */
export function readParts(
  state: RequestState,
  limits: MultipartLimits,
): Promise<AsyncIterable<MultipartPart>> {
  const type = contentType(state);
  if (!isMultipart(type)) return Promise.reject(unsupported(type, MULTIPART_MEDIA_TYPE));
  return openUpload(state, 'streamed', async (contentType) => {
    const { streamParts } = await import('./parts.js');
    const upload = await streamParts(state.request, contentType, limits);
    return { value: upload.parts, release: upload.release };
  }) as Promise<AsyncIterable<MultipartPart>>;
}

/**
 * Drops the request's upload, if it has one: temporary files removed, the body left unread, a
 * file's stream never read closed, unless it is the stream the route `answered` with, or one
 * being read into it (docs/uploads.md: such a stream keeps its file until it is read).
 */
export function releaseUploads(
  state: RequestState,
  answered?: Response,
): Promise<void> | undefined {
  const upload = state.cache?.get(UPLOAD_KEY) as Upload | undefined;
  const body = answered?.body;
  return upload?.release(undefined, isStream(body) ? body : undefined);
}

/**
 * `answer` (the route's answer, or a promise of it), releasing the request's upload once it is
 * settled, whichever way; the answer goes out once the temporary files are removed.
 */
export function releaseUploadsAfter(
  state: RequestState,
  answer: Response | Promise<Response>,
): Response | Promise<Response> {
  if (!isThenable(answer)) {
    const released = releaseUploads(state, answer);
    return released === undefined ? answer : released.then(() => answer);
  }
  return answer.then(
    async (response) => {
      await releaseUploads(state, response);
      return response;
    },
    async (error: unknown) => {
      await releaseUploads(state);
      throw error;
    },
  );
}
