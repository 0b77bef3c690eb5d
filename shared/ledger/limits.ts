/**
 * The largest amount one leg may carry: keeps every sum of legs a safe integer. Apart from
 * ./schemas.ts, so what only needs the number (the wallet's checks, through the ledger client's
 * contract) does not build the ledger's schemas at import.
 */
export const MAX_LEG_AMOUNT = 2 ** 45;
