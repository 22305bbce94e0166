export * from './permissions.ts';
export * from './ids.ts';
export * from './regions.ts';
export * from './errors.ts';
export * from './crypto.ts';
export * from './tokens.ts';
export * from './data-types.ts';
export * from './jsonapi.ts';
