/**
 * The context object the Lambda runtime passes with each event (`@types/aws-lambda` calls it
 * `Context`; its deprecated `done`/`fail`/`succeed` are left out).
 */
export interface LambdaContext {
  callbackWaitsForEmptyEventLoop: boolean;
  functionName: string;
  functionVersion: string;
  invokedFunctionArn: string;
  memoryLimitInMB: string;
  awsRequestId: string;
  logGroupName: string;
  logStreamName: string;
  identity?: { cognitoIdentityId: string; cognitoIdentityPoolId: string } | undefined;
  clientContext?: { client: unknown; custom?: unknown; env: unknown } | undefined;
  tenantId?: string | undefined;
  getRemainingTimeInMillis(): number;
}
