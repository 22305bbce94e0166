import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { readBody } from '../../lib/body.ts';
import { defineRoute } from '../../lib/routes.ts';
import { actionBody, errorResponses, idParam, publicErrorResponses } from '../../lib/openapi.ts';
import { DashboardStatus } from '../dashboard-status/schema.ts';
import { inputParametersSchema } from '../reports/schema.ts';
import type { Caller } from './access.ts';
import { PublicLink } from './schema.ts';
import { linkReportData, linkStatus, openLink, unlockLink, type PublicContext } from './service.ts';
import { getSharingSecret, rollSharingSecret } from './secret.ts';
import { parseAddress } from './ip-match.ts';

/**
 * The public side of sharing links, for the web app's `/s/{token}` page (no API key, no session).
 * The token is the whole credential, checked together with the link's allow-list, signature and
 * password on every call (see access.ts). Registered before the authenticate middleware.
 *
 * Client address: `CF-Connecting-IP` only. Cloudflare's edge sets it on every request that reaches a
 * worker from the internet (a client cannot choose it), and the web app forwards the value it received
 * on its service-binding call. `X-Forwarded-For` is never trusted: anyone can write it. Without the
 * header the address is unknown, and links with an allow-list refuse the call.
 */
export const publicLinkRoutes = new OpenAPIHono<AppEnv>();
/** Reading and rolling a link's sharing secret (signed-in managers; registered after authenticate). */
export const sharingSecretRoutes = new OpenAPIHono<AppEnv>();

const tags = ['Public sharing links (web app)'];
const tokenParam = z.object({
  token: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'token', in: 'path' }, description: 'The link’s token (the last part of /s/{token}).' }),
});
const query = z.string().max(8192).default('').openapi({
  description: 'The public page’s query string without "?" (filter values `f.<variable>`, and `expires`/`signature` for links that require a sharing secret).',
});
const grantHeader = z.object({
  'cairn-link-grant': z.string().optional().openapi({ description: 'The grant from POST /public/links/{token}/password, for links with a password.' }),
});

const openBody = z.object({ query }).strict().openapi('PublicLinkOpen');
const passwordBody = z
  .object({ password: z.string().min(1).max(200), query })
  .strict()
  .openapi('PublicLinkPassword');
const statusBody = z
  .object({
    query,
    parameters: inputParametersSchema
      .optional()
      .openapi({ description: 'The viewer’s filter choice; used only when the link’s filter bar is enabled. Signed values win.' }),
    refresh_data: z.boolean().default(false).openapi({ description: 'Re-run now; only on links with refresh_enabled.' }),
  })
  .strict()
  .openapi('PublicLinkStatusRequest');
const dataBody = z
  .object({
    query,
    parameters: inputParametersSchema.optional(),
    data_format: z.enum(['csv', 'xlsx']),
  })
  .strict()
  .openapi('PublicLinkDataRequest');

const json = (description: string, schema: z.ZodType = z.record(z.string(), z.unknown())) => ({ description, content: { 'application/json': { schema } } });
const ACCESS =
  'Answers 404 for an unknown token, 403 (meta.reason ip_not_allowed, signature_missing, signature_invalid, signature_expired, signature_expiry_too_far) when the address or the signature does not fit, 403 (meta.reason signed_parameters_invalid, with meta.problems naming each URL parameter) when a signed filter value cannot apply (no such filter, a value that does not read as its type, a malformed range, or parameters switched off for the link), 401 (meta.reason password_required) without a valid password grant.';

/** Open and status answers come serialized (kept by lib/read-cache.ts). */
const JSON_TYPE = { 'content-type': 'application/json' };

function publicContext(c: Context<AppEnv>): PublicContext {
  return {
    db: c.var.db,
    direct: c.var.direct,
    env: c.env,
    requestId: c.var.requestId,
    baseUrl: new URL(c.req.url).origin,
    waitUntil: (p) => c.executionCtx.waitUntil(p),
  };
}

function caller(c: Context<AppEnv>, q: string): Caller {
  // Only a well-formed address counts; anything else is no address (auth/failures.ts).
  const ip = c.req.header('cf-connecting-ip')?.trim() ?? '';
  return { ip: parseAddress(ip) ? ip : null, query: q.replace(/^\?/, ''), grant: c.req.header('cairn-link-grant') };
}

defineRoute(
  publicLinkRoutes,
  createRoute({
    method: 'post',
    path: '/public/links/{token}',
    tags,
    summary: 'Open a sharing link',
    security: [],
    description: `What the public page draws: the link’s options (never its password or secret), the dashboard with its layout, its reports (never their SQL; download_enabled is the stricter of link and report; maximize_enabled is the report's maximize_action_enabled), its filters (manual options only with the filter bar), and the parameters in force (fixed_variables: signed values the viewer cannot change). ${ACCESS}`,
    'x-permissions': ['sharing link token'],
    request: { params: tokenParam, headers: grantHeader, body: actionBody(openBody) },
    responses: { 200: json('The link and its dashboard', PublicLink), ...publicErrorResponses(400, 401, 403, 404, 415, 422) },
  }),
  async (c) => {
    const body = await readBody(c, openBody, 'action');
    return c.body(await openLink({ ctx: publicContext(c), token: c.req.param('token')!, caller: caller(c, body.query) }), 200, JSON_TYPE);
  },
);

defineRoute(
  publicLinkRoutes,
  createRoute({
    method: 'post',
    path: '/public/links/{token}/password',
    tags,
    summary: 'Unlock a password-protected link',
    security: [],
    description:
      'Checks the password against the stored hash and answers a grant valid for 8 hours (send it as Cairn-Link-Grant). A new password invalidates every grant. Wrong password: 401 (meta.reason wrong_password); after 10 wrong passwords from one address, one per 30 s, and at most 100 wrong passwords a day per link from all addresses together (429 rate_limited; a right password does not count). The allow-list and signature are checked first (403). 422 invalid_state when the link has no password.',
    'x-permissions': ['sharing link token'],
    request: { params: tokenParam, body: actionBody(passwordBody, true) },
    responses: { 200: json('The grant', z.object({ grant: z.string(), expires_at: z.string() })), ...publicErrorResponses(400, 401, 403, 404, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readBody(c, passwordBody, 'action');
    return c.json(await unlockLink({ ctx: publicContext(c), token: c.req.param('token')!, caller: caller(c, body.query), password: body.password }));
  },
);

defineRoute(
  publicLinkRoutes,
  createRoute({
    method: 'post',
    path: '/public/links/{token}/status',
    tags,
    summary: 'Dashboard status for a sharing link',
    security: [],
    description: `The status poll of POST /dashboards/{id}/status, run as the link's viewer: the dashboard's organization, no user (built-in user snippets are NULL), View Dashboards on this dashboard only. Data access tokens in the answer fetch rows from the data server. A report's or filter's error keeps its code, but its message is a generic one: the database's text is shown only to signed-in callers. refresh_data needs the link's refresh_enabled (403 otherwise) and is limited to 3 in a row, then one per 10 s per address. ${ACCESS}`,
    'x-permissions': ['sharing link token'],
    request: { params: tokenParam, headers: grantHeader, body: actionBody(statusBody) },
    responses: { 200: json('The status', DashboardStatus), ...publicErrorResponses(400, 401, 403, 404, 415, 422, 429) },
  }),
  async (c) => {
    const body = await readBody(c, statusBody, 'action');
    return c.body(await linkStatus({ ctx: publicContext(c), token: c.req.param('token')!, caller: caller(c, body.query), input: body }), 200, JSON_TYPE);
  },
);

defineRoute(
  publicLinkRoutes,
  createRoute({
    method: 'post',
    path: '/public/links/{token}/reports/{id}/data',
    tags,
    summary: 'Download a report of a sharing link',
    security: [],
    description: `CSV or XLSX of one report of the link's dashboard, as POST /reports/{id}/data answers it (data key and token for the data server; 204 without rows). Needs the link's data_download_enabled and the report's download_actions_enabled and data_download_enabled (403 otherwise). ${ACCESS}`,
    'x-permissions': ['sharing link token'],
    request: { params: tokenParam.extend(idParam.shape), headers: grantHeader, body: actionBody(dataBody, true) },
    responses: { 200: json('Where to fetch the file'), 204: { description: 'The result has no rows' }, ...publicErrorResponses(400, 401, 403, 404, 415, 422) },
  }),
  async (c) => {
    const body = await readBody(c, dataBody, 'action');
    const res = await linkReportData({
      ctx: publicContext(c),
      token: c.req.param('token')!,
      id: c.req.param('id')!,
      caller: caller(c, body.query),
      input: body,
    });
    return res ? c.json(res) : c.body(null, 204);
  },
);

const secretAnswer = json(
  'The sharing secret',
  z
    .object({
      sharing_secret: z.string().nullable().openapi({ description: 'null until one is generated (POST).' }),
      sharing_secret_required: z.boolean(),
    })
    .openapi('SharingSecret'),
);
const SECRET_WHO =
  'Needs Manage Dashboards on the link’s dashboard. The secret signs embedding URLs (HMAC-SHA256 over the path and query, see the embedding docs); keep it on your server.';

defineRoute(
  sharingSecretRoutes,
  createRoute({
    method: 'get',
    path: '/dashboard_sharing_links/{id}/sharing_secret',
    tags: ['Dashboard sharing links'],
    summary: 'Read a link’s sharing secret',
    description: `The link’s current sharing secret, or null when none was generated yet. ${SECRET_WHO}`,
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam },
    responses: { 200: secretAnswer, ...errorResponses(401, 403, 404, 429) },
  }),
  async (c) => c.json(await getSharingSecret(serviceContext(c), c.req.param('id')!)),
);

defineRoute(
  sharingSecretRoutes,
  createRoute({
    method: 'post',
    path: '/dashboard_sharing_links/{id}/sharing_secret',
    tags: ['Dashboard sharing links'],
    summary: 'Generate or roll a link’s sharing secret',
    description: `A new random secret replaces the old one at once: URLs signed with the old secret stop working. ${SECRET_WHO}`,
    'x-permissions': ['manage_dashboards'],
    request: { params: idParam },
    responses: { 200: secretAnswer, ...errorResponses(401, 403, 404, 429) },
  }),
  async (c) => c.json(await rollSharingSecret(serviceContext(c), c.req.param('id')!)),
);
