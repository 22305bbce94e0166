/**
 * SQL snippets: named pieces of SQL referenced as `[name]` or, with parameters, `[name(arg, …)]`
 * (parameters written `{{param}}` in the snippet's text), plus the built-in context snippets.
 */
export interface SnippetDefinition {
  name: string;
  text: string;
  /** Parameter names, in call order. */
  params?: readonly string[] | null;
}

/** Who and where a query runs for, read by the built-in snippets. Missing or null → SQL NULL. */
export interface SqlContext {
  userEmail?: string | null;
  userFirstname?: string | null;
  userLastname?: string | null;
  /** admin, analyst or viewer; null for sharing links, API keys and scheduled e-mails. */
  userRole?: string | null;
  dashboardName?: string | null;
  dashboardId?: string | null;
}

export const BUILT_IN_SNIPPETS = {
  CAIRN_USER_EMAIL: 'userEmail',
  CAIRN_USER_FIRSTNAME: 'userFirstname',
  CAIRN_USER_LASTNAME: 'userLastname',
  CAIRN_USER_ROLE: 'userRole',
  CAIRN_DASHBOARD_NAME: 'dashboardName',
  CAIRN_DASHBOARD_ID: 'dashboardId',
} as const satisfies Record<string, keyof SqlContext>;
export type BuiltInSnippet = keyof typeof BUILT_IN_SNIPPETS;

export function isBuiltInSnippet(name: string): name is BuiltInSnippet {
  return Object.hasOwn(BUILT_IN_SNIPPETS, name);
}

/** Names in the reserved prefix that are not built-ins: refused so a typo does not pass silently. */
export function looksBuiltIn(name: string): boolean {
  return /^CAIRN_[A-Z0-9_]+$/.test(name) && !isBuiltInSnippet(name);
}

export function builtInValue(name: BuiltInSnippet, context: SqlContext | null | undefined): string | null {
  const v = context?.[BUILT_IN_SNIPPETS[name]];
  return v === undefined || v === null ? null : String(v);
}
