import { describe, it } from 'vitest';
// @ts-ignore
import out from '/tmp/cx/cjsprobe/index.cjs';
describe('probe', () => { it('cjs', () => { console.log(JSON.stringify(out, null, 1)); }); });
