import { createDocumentClient } from '../aws/dynamodb';
import { platformClock } from '../kernel/clock';
import { tableName } from '../kernel/config';
import { uuidv7 } from '../kernel/ids';
import { DeferredLedger, ledgerClientLoader, type LedgerOperations } from '../ledger-client/loader';
import type { TokenSigner, WalletDeps } from '../wallet/deps';

/**
 * The wallet's services' dependencies, built once per Lambda container on first use (never at
 * import, so loading a handler needs no configuration): the WalletTable client, the clock and id
 * source, the ledger client, and the token signer. What a worker imports (./wallet.ts adds the HTTP
 * handler factory and its credential hook): no worker signs or verifies a wallet token, so the
 * signer comes from the module that does, ./wallet.ts, which provides it when it is loaded, and a
 * worker's bundle carries neither jose nor the HTTP stack (docs/performance.md).
 */

let runtime: WalletDeps | undefined;
let signerSource: (() => Promise<TokenSigner>) | undefined;

/** Called by ./wallet.ts at its import: where `runtime.signer()` comes from. */
export function provideTokenSigner(source: () => Promise<TokenSigner>): void {
  signerSource ??= source;
}

export function walletRuntime(): WalletDeps {
  if (runtime) return runtime;
  const client = createDocumentClient();
  let ledger: LedgerOperations | undefined;
  runtime = {
    client,
    table: tableName('WALLET_TABLE'),
    clock: platformClock,
    ids: uuidv7,
    signer: () => (signerSource ? signerSource() : Promise.reject(new Error('This function has no wallet token signer: only functions built with shared/runtime/wallet.ts sign or verify wallet tokens'))),
    ledger: () => (ledger ??= new DeferredLedger(ledgerClientLoader())),
  };
  return runtime;
}
