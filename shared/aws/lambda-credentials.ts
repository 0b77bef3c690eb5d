import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * What the Lambda bundles use instead of @aws-sdk/credential-provider-node (scripts/bundle.ts
 * aliases it here). Lambda puts the execution role's credentials in the environment, which is the
 * first place the SDK's default chain looks; the rest of the chain (shared config files, SSO, STS
 * web identity, IMDS, the login and process providers, and the nested STS/SSO clients they carry)
 * is about 90 KB of every bundle that a function never runs. The embedded platform, scripts and
 * tests import the SDK unbundled and keep the whole chain.
 */
export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}) => fromEnv(init);
