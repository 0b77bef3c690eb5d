import type { Linter } from 'eslint';

/** The layer rules of shared/ for a tree rooted at `root` (see layers.js). */
export function layerRules(root: string): Linter.Config[];
