import type { Operation } from '../route-catalog.ts';
import type { SecurityCase } from './cases.ts';

const EXECUTIONS =
  'who sees an execution depends on what it ran for and who started it (resources/executions/access.ts), not on one permission: executions.test.ts and grants.test.ts';

/**
 * Operations of the OpenAPI document that the shared security suite does not call, each with the
 * reason. Any other operation without a case in test/security/*.ts fails the suite: a new route must
 * get a case, or a line here saying why it cannot have one and where it is tested instead.
 */
export const securityExemptions: Record<string, string> = {
  'GET /api_keys': 'signed-in admins only, never an API key (x-permissions: admin session): api-keys.test.ts',
  'POST /api_keys': 'signed-in admins only, never an API key (x-permissions: admin session): api-keys.test.ts',
  'GET /api_keys/{id}': 'signed-in admins only, never an API key (x-permissions: admin session): api-keys.test.ts',
  'PATCH /api_keys/{id}': 'signed-in admins only, never an API key (x-permissions: admin session): api-keys.test.ts',
  'DELETE /api_keys/{id}': 'signed-in admins only, never an API key (x-permissions: admin session): api-keys.test.ts',
  'PATCH /organization': 'signed-in admins only, never an API key (x-permissions: admin session): organization.test.ts',
  'POST /dashboard_schedules/send_test': 'mails the signed-in caller, so every API key is refused (403): dashboard-schedule-send-test.test.ts',
  'GET /executions/{id}': EXECUTIONS,
  'GET /executions/{id}/data': EXECUTIONS,
  'POST /executions/{id}/cancel': EXECUTIONS,
  'GET /dashboard_groups/sort': 'the documented GET-with-body form, which fetch cannot send; the POST form (same handler) has a case',
};

/** `METHOD /openapi/{path}`, the key of securityExemptions. */
const operationKey = (op: Pick<Operation, 'method' | 'path'>) => `${op.method} ${op.path}`;

/** How specific a path template is: literal segments count more than `{param}` ones. */
const literalSegments = (path: string) => path.split('/').filter((s) => s && !s.startsWith('{')).length;

/** The document's operation a case calls: the most literal template matching its method and path. */
function operationOf(ops: Pick<Operation, 'method' | 'path'>[], c: Pick<SecurityCase, 'method' | 'path'>) {
  const path = c.path.split('?')[0]!;
  const matching = ops.filter((op) => op.method === c.method && new RegExp(`^${op.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path));
  return matching.sort((a, b) => literalSegments(b.path) - literalSegments(a.path))[0];
}

/**
 * What the completeness check finds: operations that take a key but have neither a case nor an
 * exemption, and exemptions that name no operation (or one that has a case after all).
 */
export function securityGaps(
  ops: Pick<Operation, 'method' | 'path' | 'public'>[],
  cases: Pick<SecurityCase, 'method' | 'path'>[],
  exemptions: Record<string, string> = securityExemptions,
) {
  const covered = new Set(cases.map((c) => operationOf(ops, c)).flatMap((op) => (op ? [operationKey(op)] : [])));
  const keyed = ops.filter((op) => !op.public).map(operationKey);
  return {
    uncovered: keyed.filter((k) => !covered.has(k) && !exemptions[k]),
    staleExemptions: Object.keys(exemptions).filter((k) => !keyed.includes(k) || covered.has(k)),
    unreasoned: Object.entries(exemptions)
      .filter(([, why]) => why.trim().length < 10)
      .map(([k]) => k),
  };
}
