/**
 * The catalog's value sets: plain values, apart from the schemas, so code outside the catalog's
 * routes (subscriptions' schemas, the import parser) names them without building the catalog API's
 * schemas at import.
 */

export const CLIENT_STATUSES = ['pending', 'active', 'suspended'] as const;
export const OFFERING_STATUSES = ['draft', 'published', 'archived'] as const;
export const OFFERING_KINDS = ['item', 'plan'] as const;
export const INTERVALS = ['weekly', 'monthly', 'yearly'] as const;
export const VARIANT_STATUSES = ['active', 'archived'] as const;
export const PRICING_MODES = ['manual', 'markup'] as const;
export const MOVEMENT_KINDS = ['restock', 'adjustment', 'reservation', 'release', 'sale'] as const;
