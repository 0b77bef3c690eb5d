import type { Principal } from '../../http/principal';
import { parseApiKey, type ApiKeyEnv } from '../auth/api-key-verifier';

/**
 * The env segment (`live` or `sandbox`) of the API key a request was authenticated with; undefined
 * for other credentials. The credential hook has already checked the segment against the key.
 */
export function apiKeyEnvOf(principal: Principal, headers: Readonly<Record<string, string>>): ApiKeyEnv | undefined {
  if (principal.kind !== 'api_key') return undefined;
  const credential = /^bearer +(\S+) *$/i.exec(headers.authorization ?? '')?.[1];
  return credential ? parseApiKey(credential)?.env : undefined;
}
