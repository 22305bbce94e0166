/** `sso configure`: an organization's single sign-on from the operator CLI (issue 20, ARCHITECTURE D57). */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { auditLog, organizations } from '@cairn/db';
import { eq } from 'drizzle-orm';
import { readDevJson } from '../../db/src/dev-config.ts';
import { REPO_ROOT } from '../lib/paths.ts';
import { connectionBody, saveConnection, serializeConnection, ssoAddresses } from '../../worker-api/src/auth/sso/connection.ts';
import { loadSamlLibraries, readIdpMetadata } from '../../worker-api/src/auth/sso/saml.ts';
import { UsageError } from './args.ts';
import { CLI_ACTOR, type Command, type CommandContext } from './command.ts';

const text = (ctx: CommandContext, name: string) => (typeof ctx.flags[name] === 'string' ? (ctx.flags[name] as string) : undefined);

/** The API's SECRET_KEY (seals the client secret): SECRET_KEY, or the local stack's `<state dir>/secrets.json`. */
function secretKey(ctx: CommandContext): string {
  const fromEnv = process.env.SECRET_KEY?.trim();
  if (fromEnv) return fromEnv;
  const file = resolve(REPO_ROOT, text(ctx, 'state-dir') ?? '.data', 'secrets.json');
  try {
    const key = (JSON.parse(readFileSync(file, 'utf8')) as { SECRET_KEY?: string }).SECRET_KEY;
    if (key) return key;
  } catch {
    /* below */
  }
  throw new UsageError(
    `The client secret is sealed with the API's SECRET_KEY: set SECRET_KEY, or point --state-dir at the stack's state (no ${file}).`,
    'sso configure',
  );
}

/** Where the web app is: --app-url, APP_URL, or the local stack's dev.json. */
function appUrl(ctx: CommandContext): string | undefined {
  return text(ctx, 'app-url') ?? process.env.APP_URL ?? (readDevJson()?.app as string | null | undefined) ?? undefined;
}

export const ssoConfigure: Command = {
  name: 'sso configure',
  summary: "Set up an organization's single sign-on (OpenID Connect or SAML 2.0) and print the addresses to register.",
  usage:
    'sso configure --org ORG_ID --protocol oidc|saml --issuer URL [--client-id ID] [--client-secret SECRET] [--metadata-url URL] [--sso-url URL] [--certificate-file PEM] --domains a.example,b.example [--require] [--jit viewer|analyst] [--preset google|entra|okta|generic] [--app-url URL] [--json]',
  flags: {
    org: { value: true, required: true, help: 'Organization id (org_…).', placeholder: 'ORG_ID' },
    protocol: { value: true, required: true, help: 'oidc or saml.', placeholder: 'oidc|saml' },
    issuer: { value: true, help: 'OIDC: the issuer URL. SAML: the IdP entity id (read from --metadata-url when omitted).', placeholder: 'URL' },
    'client-id': { value: true, help: 'OIDC client id.', placeholder: 'ID' },
    'client-secret': { value: true, help: 'OIDC client secret (stored sealed with SECRET_KEY).', placeholder: 'SECRET' },
    'metadata-url': { value: true, help: 'SAML: the IdP metadata address (entity id, sign-in URL and certificate are read from it).', placeholder: 'URL' },
    'sso-url': { value: true, help: 'SAML: the IdP sign-in URL (HTTP-Redirect), without --metadata-url.', placeholder: 'URL' },
    'certificate-file': { value: true, help: 'SAML: the IdP signing certificate (PEM file), without --metadata-url.', placeholder: 'PEM' },
    domains: { value: true, required: true, help: 'E-mail domains the connection covers, comma-separated.', placeholder: 'LIST' },
    require: { value: false, help: 'Refuse password sign-in and password reset for the organization (without it: passwords still work).' },
    jit: { value: true, help: 'Create users on their first sign-in with this role (viewer or analyst); off when omitted.', placeholder: 'ROLE' },
    preset: { value: true, help: 'google, entra, okta or generic (default).', placeholder: 'NAME' },
    'app-url': { value: true, help: "The web app's origin, for the printed addresses (default APP_URL or .cairn/dev.json).", placeholder: 'URL' },
    'state-dir': { value: true, help: 'Where the local stack keeps secrets.json, when SECRET_KEY is not set (default .data).', placeholder: 'DIR' },
    json: { value: false, help: 'Print the result as JSON.' },
  },
  positionals: [],
  needsDatabase: true,
  async run(ctx) {
    const protocol = text(ctx, 'protocol');
    if (protocol !== 'oidc' && protocol !== 'saml') throw new UsageError(`--protocol is oidc or saml (got "${protocol}").`, this.name);
    const input: Record<string, unknown> = {
      protocol,
      preset: text(ctx, 'preset') ?? 'generic',
      issuer: text(ctx, 'issuer'),
      domains: text(ctx, 'domains')!
        .split(',')
        .map((d) => d.trim())
        .filter(Boolean),
      require_sso: ctx.flags.require === true,
      jit_role: text(ctx, 'jit') ?? null,
    };
    if (protocol === 'oidc') {
      input.client_id = text(ctx, 'client-id');
      input.client_secret = text(ctx, 'client-secret');
    } else {
      const metadataUrl = text(ctx, 'metadata-url');
      input.metadata_url = metadataUrl;
      input.sso_url = text(ctx, 'sso-url');
      const certFile = text(ctx, 'certificate-file');
      if (certFile) input.certificate = readFileSync(resolve(process.cwd(), certFile), 'utf8');
      if (metadataUrl) {
        const res = await fetch(metadataUrl, { signal: AbortSignal.timeout(10_000) });
        if (!res.ok) throw new Error(`The metadata at ${metadataUrl} answered HTTP ${res.status}.`);
        await loadSamlLibraries();
        const meta = readIdpMetadata(await res.text());
        input.issuer ??= meta.entityId;
        input.sso_url ??= meta.ssoUrl;
        input.certificate ??= meta.certificate;
      }
    }
    const parsed = connectionBody.safeParse(input);
    if (!parsed.success) {
      throw new UsageError(parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('\n'), this.name);
    }
    const orgId = text(ctx, 'org')!;
    const { db } = await ctx.db();
    const [org] = await db.select({ id: organizations.id, name: organizations.name }).from(organizations).where(eq(organizations.id, orgId));
    if (!org) throw new Error(`No organization ${orgId}.`);
    const key = protocol === 'oidc' && parsed.data.client_secret ? secretKey(ctx) : '';
    const conn = await saveConnection(db, orgId, parsed.data, key);
    await db.insert(auditLog).values({
      organization_id: orgId,
      actor_type: CLI_ACTOR.type,
      actor_id: CLI_ACTOR.id,
      action: 'configure_sso',
      resource_type: 'sso_connections',
      resource_id: orgId,
      request_id: null,
      details: { protocol: conn.protocol, domains: conn.domains, require_sso: conn.require_sso, jit_role: conn.jit_role },
    });
    const app = appUrl(ctx);
    const shown = serializeConnection(conn, app);
    if (ctx.flags.json) {
      ctx.out(JSON.stringify(shown, null, 2));
      return;
    }
    const a = ssoAddresses(app ?? '<app>', orgId);
    ctx.out(`Single sign-on (${conn.protocol.toUpperCase()}) set up for ${org.name} (${orgId}).`);
    ctx.out(`  issuer:         ${conn.issuer}`);
    ctx.out(`  domains:        ${conn.domains.join(', ')}`);
    ctx.out(`  passwords:      ${conn.require_sso ? 'refused (single sign-on required)' : 'still allowed'}`);
    ctx.out(`  new users:      ${conn.jit_role ? `created on first sign-in as ${conn.jit_role}` : 'not created (invite them first)'}`);
    ctx.out('Register these addresses at the identity provider:');
    ctx.out(`  OIDC redirect URI:        ${a.oidc_redirect_uri}`);
    ctx.out(`  SAML ACS:                 ${a.saml_acs_url}`);
    ctx.out(`  SAML entity id/metadata:  ${a.saml_metadata_url}`);
  },
};
