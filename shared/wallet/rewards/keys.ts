/** WalletTable keys of rewards (docs/rewards.md). */
export const rewardKeys = {
  settings: (tenantId: string) => ({ pk: `TENANT#${tenantId}`, sk: 'REWARDS_SETTINGS' }),
  rule: (ruleId: string) => ({ pk: `REWARD_RULE#${ruleId}`, sk: 'REWARD_RULE' }),
  /** gsi1: a client's rules, newest first. */
  clientRules: (clientId: string) => `CLIENT#${clientId}#REWARD_RULES`,
  /** One live rule per (client, offering or none, kind); keeps the slot's last version. */
  slot: (clientId: string, offeringId: string | null, kind: string) => ({ pk: `CLIENT#${clientId}#REWARD_SLOT#${offeringId ?? 'ALL'}#${kind}`, sk: 'REWARD_SLOT' }),
  /** What a payment earned (for clawback on refunds). */
  earned: (paymentId: string) => ({ pk: `PAYMENT#${paymentId}`, sk: 'REWARDS' }),
  /** A user's rewards totals; gsi1: the user's reward history, newest first. */
  user: (userId: string) => ({ pk: `USER#${userId}`, sk: 'REWARDS' }),
  history: (userId: string) => `USER#${userId}#REWARD_HISTORY`,
  entry: (entryId: string) => ({ pk: `REWARD_ENTRY#${entryId}`, sk: 'REWARD_ENTRY' }),
};
