import type { TokenSigner } from '../../shared/wallet/deps';
import { loadTokenSigner } from '../../shared/wallet/auth/tokens';
import { createHttpHandler } from '../../shared/http/handler';

// Public and table-free: it needs the signer only, not the wallet runtime (no WalletTable binding).
let signer: Promise<TokenSigner> | undefined;

export const handler = createHttpHandler(async () => (await import('../../shared/wallet/auth/routes')).authRoutes.getJwks, async () => {
  signer ??= loadTokenSigner().catch((error: unknown) => {
    signer = undefined;
    throw error;
  });
  return {
    body: await (await signer).jwks(),
    // Verifiers may keep the keys a few minutes; a rotation publishes the new key before it signs.
    headers: { 'cache-control': 'public, max-age=300' },
  };
});
