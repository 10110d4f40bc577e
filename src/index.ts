/**
 * restmachine: HTTP APIs written once, run on Node, Fetch runtimes, in-process and AWS Lambda.
 * This is the core: it imports no adapter and no `node:` module at load time.
 */

export { RestApplication } from './app/application.js';
export type { CompressionLevels, ContentCoding } from './app/compression/encoders.js';
export type { CompressOptions } from './app/compression/options.js';
export type { AuthorizationOptions } from './app/features/authorization.js';
export type { CorsOptions } from './app/features/cors.js';
export type { CspOptions } from './app/features/csp.js';
export type { DefaultHeadersInit } from './app/features/default-headers.js';
export { escapeHtml } from './app/features/renderers.js';
export type { Scope } from './app/inject/bindings.js';
export type { StandardSchemaV1, ValidationSource } from './app/inject/validation.js';
export type { AnyLogger, LogFields, Logger, PowertoolsLogger } from './app/logger.js';
export { createConsoleLogger, silentLogger } from './app/logger.js';
export type { CheckedHandler, Representable, Unrepresentable } from './app/representable.js';
export type { RouteProvider } from './app/routing/route.js';
export { Route } from './app/routing/route.js';
export { Router } from './app/routing/router.js';
export type { ServerSentEvent, SseOptions } from './app/sse.js';
export { sse } from './app/sse.js';
export type {
  ApplicationOptions,
  BuiltinInjectables,
  ErrorHandler,
  ErrorRecord,
  Handler,
  HandlerContext,
  HandlerResult,
  LifecycleHandler,
  OnRequestHook,
  OnResponseHook,
  PathParamNames,
  PathParams,
  Provider,
  ProviderContext,
  Registry,
  Renderer,
  RequestHookContext,
  ResponseHookExtras,
  TestRequestInit,
  ValidatorFunction,
} from './app/types.js';
export type { MultipartLimits, MultipartOptions } from './app/uploads/limits.js';
export type { MultipartPart, UploadedFile } from './app/uploads/types.js';
export type { SetupErrorCode, ValidationIssue } from './errors.js';
export { HttpError, SetupError, ValidationError } from './errors.js';
export { contentTypeFor } from './http/content-types.js';
export type { CookieOptions } from './http/cookie.js';
export { parseCookieHeader, serializeCookie } from './http/cookie.js';
export { formatHttpDate, parseHttpDate } from './http/date.js';
export { formatEntityTag, parseEntityTagList, strongMatch, weakMatch } from './http/etag.js';
export type { HeadersInit, WhatwgHeadersLike } from './http/headers.js';
export { MultiValueHeaders } from './http/headers.js';
export type { MediaRange, MediaType } from './http/media-type.js';
export { negotiate, parseAccept } from './http/media-type.js';
export type { MethodInput } from './http/methods.js';
export { HTTPMethod } from './http/methods.js';
export type { ByteRange, RangeRequest } from './http/range.js';
export { formatContentRange, parseRange } from './http/range.js';
export { reasonPhrase } from './http/status.js';
export type {
  ClientCertificate,
  FramedBody,
  MetricsRecorder,
  PlatformContext,
  ReadableStreamLike,
  RequestBody,
  RequestInit,
  WholeBodyReader,
} from './request.js';
export { Request } from './request.js';
export type { ResponseBody, ResponseInit } from './response.js';
export { FileBody, Response } from './response.js';
