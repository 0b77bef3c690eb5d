import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createKmsSigningPort } from '../../shared/aws/kms';
import { readJsonSecret } from '../../shared/aws/secrets';
import { createOidcIssuer, json, MAX_TOKEN_REQUEST_BYTES, type IssuerResponse } from '../../shared/http/oidc-issuer';
import { config } from '../../shared/kernel/config';
import { logger } from '../../shared/kernel/log';
import { kmsIssuerSigner, secretsManagerClients } from '../../shared/ledger/issuer';
import { observed } from '../../shared/kernel/observability';

/**
 * The ledger's embedded OIDC issuer (`-c ledgerIssuer=embedded`): POST /oauth2/token,
 * GET /.well-known/jwks.json and GET /.well-known/openid-configuration on the ledger's own API,
 * where Cognito is not available (LocalStack's free image). Outside the route manifest, like the
 * Cognito relay it replaces: it is the ledger's identity provider, not a ledger route.
 */
let issuer: ReturnType<typeof createOidcIssuer> | undefined;

function issuerOf(): ReturnType<typeof createOidcIssuer> {
  const url = config.OIDC_ISSUER;
  const keyId = config.OIDC_ISSUER_SIGNING_KMS_KEY_ID;
  const prefix = config.OIDC_ISSUER_CLIENTS_PREFIX;
  if (!url || !keyId || !prefix) throw new Error('OIDC_ISSUER, OIDC_ISSUER_SIGNING_KMS_KEY_ID and OIDC_ISSUER_CLIENTS_PREFIX must be set for the embedded issuer');
  return createOidcIssuer({
    issuer: url,
    audience: config.OIDC_AUDIENCE,
    signer: kmsIssuerSigner(createKmsSigningPort(), keyId),
    clients: secretsManagerClients(prefix, (secretId) => readJsonSecret(secretId)),
  });
}

const toResult = (answer: IssuerResponse): APIGatewayProxyResult => ({ statusCode: answer.status, headers: answer.headers, body: JSON.stringify(answer.body) });

export const handler = observed(async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  issuer ??= issuerOf();
  const raw = event.body ?? '';
  const body = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  const headers = Object.fromEntries(Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value ?? undefined]));
  try {
    const answer = await issuer({ method: event.httpMethod, path: event.path, headers, body: Buffer.byteLength(body) > MAX_TOKEN_REQUEST_BYTES ? undefined : body });
    return toResult(answer ?? json(404, { error: 'not_found' }));
  } catch (error) {
    // KMS unavailable (signing or the public key): the client may retry.
    logger.error('the embedded issuer failed', { error: error as Error });
    return toResult(json(503, { error: 'temporarily_unavailable', error_description: 'The issuer cannot sign right now; retry later.' }));
  }
});
