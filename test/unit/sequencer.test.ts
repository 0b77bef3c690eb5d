import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LONGEST_FIRST } from '../support/sequencer';

describe('the test files started first (test/support/sequencer.ts)', () => {
  it('each still exists, so a renamed one is not silently left to run last', () => {
    for (const file of LONGEST_FIRST) expect(existsSync(join(import.meta.dirname, '..', '..', file)), file).toBe(true);
  });
});
