/** The malformed-input fuzz, part "members": wrong types, hostile unicode, deep nesting and a megabyte at every member (test/fuzz-kit.ts). */
import { registerFuzz } from './fuzz-kit.ts';

registerFuzz('members');
