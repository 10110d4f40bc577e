/**
 * The conformance suite through the AWS Lambda adapter, as an HTTP API (payload 2.0) invokes
 * it: the path arrives percent-decoded in `rawPath`, the query as sent in `rawQueryString`,
 * cookies in their own array; results are read back with `cookies` as Set-Cookie headers.
 */
import { readV2Result, v2Event } from '../adapters/aws/fixtures.js';
import { lambdaDriver } from './lambda-driver.js';
import { conformanceSuite } from './suite.js';

const DECODED_PATH =
  'an HTTP API percent-decodes the path before invoking the function, so what the client ' +
  'encoded cannot be told apart from what it did not';

export const lambdaV2Driver = lambdaDriver({
  name: 'Lambda HTTP API (payload 2.0)',
  toEvent: (request) => v2Event(request),
  readResult: readV2Result,
  skips: {
    'path parameters are percent-decoded once and %2F stays inside one': `${DECODED_PATH}: %2F arrives as a separator`,
    'a catch-all never matches an encoded separator': `${DECODED_PATH}: %2F arrives as a separator`,
    'malformed percent-encoding in the path is 400': `${DECODED_PATH}: a malformed escape never reaches the function as one`,
  },
});

conformanceSuite(lambdaV2Driver);
