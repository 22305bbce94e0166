import { workersTestConfig } from '../vitest.workers.ts';

export default workersTestConfig();
