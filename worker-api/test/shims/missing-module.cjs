// See vitest.config.ts: stands in for a package that is not installed (optional requires).
throw Object.assign(new Error('Cannot find module (not installed)'), { code: 'MODULE_NOT_FOUND' });
