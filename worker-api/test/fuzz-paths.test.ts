/** The malformed-input fuzz, part "paths": %00 and bad encodings in path ids and query parameters, and an invalid tz (test/fuzz-kit.ts). */
import { registerFuzz } from './fuzz-kit.ts';

registerFuzz('paths');
