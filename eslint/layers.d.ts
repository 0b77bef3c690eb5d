import type { Linter } from 'eslint';

/** The layer rules of shared/ for a tree rooted at `root` (see layers.js). */
export function layerRules(root: string): Linter.Config[];

/** The folders of shared/wallet/, lowest first: each imports only those before it (see layers.js). */
export const WALLET_ORDER: readonly string[];
