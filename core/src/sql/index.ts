/** The public face of the SQL parameter compiler. */
export * from './params.ts';
export { compileSql, type CompileOptions, type CompiledQuery } from './compile.ts';
export { sqlReferences, type SqlReferences } from './references.ts';
export { dialectOf, type Dialect } from './lexer.ts';
export { BUILT_IN_SNIPPETS, type SnippetDefinition, type SqlContext } from './snippets.ts';

export { RELATIVE_PRESETS, isRelativeToken, parseRelative, relativeLabel, relativeRangeValue, resolveRelative, resolveRelativeParameters } from './relative.ts';
