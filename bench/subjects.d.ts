/**
 * The parts of subjects still being written that the benchmarks use, typed by hand so the
 * harness type-checks before they exist (bench/lib/build.ts resolves these names to src/).
 */

declare module 'bench-subject/aws' {
  export interface CloudGatewayAdapterOptions {
    enableMetrics?: boolean;
    metricsPublisher?: null;
  }
  /** SPEC §9: a Lambda handler for API Gateway REST 1.0, HTTP API 2.0, ALB and Function URLs. */
  export class CloudGatewayAdapter {
    constructor(app: object, options?: CloudGatewayAdapterOptions);
    handleEvent(event: unknown, context?: unknown): Promise<unknown>;
    readonly handler: (event: unknown, context?: unknown) => Promise<unknown>;
  }
}

declare module 'bench-subject/static' {
  /** SPEC §10: a router serving the files of a directory (or S3 location). */
  export class StaticRouter {
    constructor(serve: string, options?: Record<string, unknown>);
  }
}
