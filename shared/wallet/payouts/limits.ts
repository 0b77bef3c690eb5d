/**
 * One ledger leg's bound (2^45): a payout's amount and its fee are held in one leg. Apart from
 * ./schemas.ts, so the payout service checks it without building the route schemas at import.
 */
export const MAX_PAYOUT_AMOUNT = 2 ** 45;
