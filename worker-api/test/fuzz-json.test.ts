/** The malformed-input fuzz, part "json": broken JSON, wrong roots, deep nesting and U+0000 in every text member (test/fuzz-kit.ts). */
import { registerFuzz } from './fuzz-kit.ts';

registerFuzz('json');
