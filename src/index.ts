/**
 * restmachine: HTTP APIs written once, run on Node, Fetch runtimes, in-process and AWS Lambda.
 * This is the core: it imports no adapter and no `node:` module at load time.
 *
 * Every type a public declaration reaches is exported (as a type: nothing at run time), so that
 * `tsc --declaration` can name the inferred type of an application or router a user exports
 * (without, it fails with TS2742). That includes the registry and route-map types of
 * src/app/routing/route-types.ts and the structures routes compile into (`RoutingTable`,
 * `CompiledRoute`, `RequestState`...), which public members such as `routingTable()` have as
 * types: those are internal, not a stable API. test/package/install.test.ts checks the rule.
 */

export { RestApplication } from './app/application.js';
export type { CompressionLevels, ContentCoding } from './app/compression/encoders.js';
export type { CompiledCompression, CompressOptions } from './app/compression/options.js';
export type { AuthorizationHook, AuthorizationOptions } from './app/features/authorization.js';
export type { CompiledConditional, ValidatorProvider } from './app/features/conditional.js';
export type { CompiledCors, CorsOptions } from './app/features/cors.js';
export type { CompiledCsp, CspOptions } from './app/features/csp.js';
export type {
  CompiledDefaultHeaderEntry,
  CompiledDefaultHeaders,
  DefaultHeadersInit,
  DefaultHeadersSource,
} from './app/features/default-headers.js';
export type { CompiledHook, RouteHooks } from './app/features/hooks.js';
export type { CompiledRenderer } from './app/features/renderers.js';
export { escapeHtml } from './app/features/renderers.js';
export type { ResultCheck } from './app/features/response-validation.js';
export type { RouteFeatures } from './app/features/route-features.js';
export type { Binding, GuardedFunction, Scope } from './app/inject/bindings.js';
export type { BodyParser, CompiledParser } from './app/inject/body-parsers.js';
export type {
  Available,
  GetterCompiler,
  InjectionHost,
  PathParamPositions,
} from './app/inject/getters.js';
export type { Injectable } from './app/inject/handler-parameters.js';
export type { Getter, RequestState } from './app/inject/request-state.js';
export type { StandardSchemaV1, ValidationSource } from './app/inject/validation.js';
export type {
  IndexSignatureKey,
  LifecycleHandler,
  StartupResults,
} from './app/lifecycle-types.js';
export type {
  AnyLogger,
  ConsoleLoggerOptions,
  LogFields,
  Logger,
  PowertoolsLogger,
} from './app/logger.js';
export { createConsoleLogger, silentLogger } from './app/logger.js';
export type { CheckedHandler, Representable, Unrepresentable } from './app/representable.js';
export type { MALFORMED, PathMatch, RouteLeaf, RouteMatcher } from './app/routing/path-matcher.js';
export type { DependencyOptions, ValidatesOptions } from './app/routing/registration.js';
export type { RegistrationSite } from './app/routing/registration-site.js';
export type { RouteProvider } from './app/routing/route.js';
export { Route } from './app/routing/route.js';
export type {
  CarriesRoutes,
  InputsOf,
  IntersectionOf,
  JoinPath,
  MethodOf,
  MountedRoutes,
  NewRoute,
  NOT_FOR_HOOKS,
  NotForHooks,
  NotForHooksNames,
  RouteEntry,
  RouteMap,
  RouteShape,
  RoutesCarriedBy,
  SourceKeyOf,
  SourceKeys,
  STARTUP_RESULTS,
  StartupResult,
  StartupResultNames,
  TrimTrailingSlash,
  TypedRoute,
  Unboxed,
  VALIDATED,
  Validated,
  ValidatedBy,
  ValidatedInput,
  ValidatorNames,
  WithInputs,
  WithLeadingSlash,
  WithReturn,
} from './app/routing/route-types.js';
export type { Mount } from './app/routing/router.js';
export { Router } from './app/routing/router.js';
export type { CompiledRoute, RoutingTable, ScopedRoute } from './app/routing/routing-table.js';
export type { CompiledErrorHandler, ErrorHandlers } from './app/routing/scope.js';
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
  HookBodyNames,
  HookDependencies,
  KnowsLists,
  ListOfText,
  OnRequestHook,
  OnRequestResult,
  OnResponseHook,
  PathParamNames,
  PathParams,
  Provider,
  ProviderContext,
  Registry,
  Renderer,
  RequestHookContext,
  ResponseHookExtras,
  TakesText,
  TestRequestBody,
  TestRequestInit,
  TextInputCheck,
  TextInputMismatch,
  TextMismatchIn,
  Truthy,
  ValidatorFunction,
  ValidatorOutput,
  With,
} from './app/types.js';
export type { MultipartLimits, MultipartOptions } from './app/uploads/limits.js';
export type { MultipartPart, UploadedFile } from './app/uploads/types.js';
export type { DistinguishedName } from './client-certificate.js';
export type { SetupErrorCode, ValidationIssue } from './errors.js';
export { HttpError, SetupError, ValidationError } from './errors.js';
export { contentTypeFor } from './http/content-types.js';
export type { CookieOptions } from './http/cookie.js';
export { parseCookieHeader, serializeCookie } from './http/cookie.js';
export { formatHttpDate, parseHttpDate } from './http/date.js';
export { formatEntityTag, parseEntityTagList, strongMatch, weakMatch } from './http/etag.js';
export type { FieldsInit } from './http/header-fields.js';
export type { HeadersInit, WhatwgHeadersLike } from './http/headers.js';
export { MultiValueHeaders } from './http/headers.js';
export type { MediaRange, MediaType } from './http/media-type.js';
export { negotiate, parseAccept } from './http/media-type.js';
export type { MethodInput } from './http/methods.js';
export { HTTPMethod } from './http/methods.js';
export type { ByteRange, RangeRequest } from './http/range.js';
export { formatContentRange, parseRange } from './http/range.js';
export { reasonPhrase } from './http/status.js';
export type { VaryMembers } from './http/vary.js';
export type {
  ClientCertificate,
  FramedBody,
  LambdaContext,
  MetricsRecorder,
  PlatformContext,
  ReadableStreamLike,
  RequestBody,
  RequestInit,
  WholeBodyReader,
} from './request.js';
export { Request } from './request.js';
export type { DataObject, ResponseBody, ResponseInit } from './response.js';
export { FileBody, Response } from './response.js';
