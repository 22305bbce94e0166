// See vitest.config.ts: workerd's process object for CommonJS dependencies in the test pool.
module.exports = globalThis.process;
