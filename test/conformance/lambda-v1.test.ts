/**
 * The conformance suite through the AWS Lambda adapter, as an API Gateway REST API (payload
 * 1.0) invokes it: each request becomes a REST proxy event, each result is read back the way
 * API Gateway merges `headers` and `multiValueHeaders`.
 */
import { readV1Result, restEvent } from '../adapters/aws/fixtures.js';
import { lambdaDriver } from './lambda-driver.js';
import { conformanceSuite } from './suite.js';

export const lambdaV1Driver = lambdaDriver({
  name: 'Lambda REST API (payload 1.0)',
  toEvent: (request) => restEvent(request),
  readResult: readV1Result,
});

conformanceSuite(lambdaV1Driver);
