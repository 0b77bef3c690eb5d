/**
 * What the embedded platform's AWS stand-ins are addressed with: DynamoDB Local takes any
 * credentials and region. A leaf, so the CLIs read it without loading the AWS SDK.
 */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
export const LOCAL_REGION = 'us-east-1';
