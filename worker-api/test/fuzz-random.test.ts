/** The malformed-input fuzz, part "random": seeded fast-check values at random members (test/fuzz-kit.ts). */
import { registerFuzz } from './fuzz-kit.ts';

registerFuzz('random');
