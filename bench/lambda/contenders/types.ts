import type { Context } from 'aws-lambda';

/** A Lambda handler as each contender exports it. */
export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;
