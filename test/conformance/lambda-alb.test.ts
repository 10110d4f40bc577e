/**
 * The conformance suite through the AWS Lambda adapter, as an Application Load Balancer target
 * group with multi-value headers invokes it: path and query as sent (query values still
 * percent-encoded), every header value listed; results must come back in multi-value shape.
 */
import type { ALBResult } from 'aws-lambda';
import { albEvent, readAlbResult } from '../adapters/aws/fixtures.js';
import { lambdaDriver } from './lambda-driver.js';
import { conformanceSuite } from './suite.js';

export const lambdaAlbDriver = lambdaDriver({
  name: 'Lambda ALB (multi-value headers)',
  toEvent: (request) => albEvent(request, { multiValue: true }),
  readResult: (result: ALBResult) => readAlbResult(result, true),
});

conformanceSuite(lambdaAlbDriver);
