/** The operator commands: organizations, API keys, dev credentials. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import {
  isRegion,
  parsePermission,
  PERMISSION_LABELS,
  PERMISSIONS,
  RESTRICTABLE_RESOURCE_TYPES,
  type Grant,
  type Permission,
  type RestrictableResourceType,
} from '@cairn/core';
import { organizations } from '@cairn/db';
import { organizationSshKey } from '@cairn/db/ssh-key';
import { authorizedKeysLine } from '@cairn/core/ssh-keys';
import { REPO_ROOT } from '../lib/paths.ts';
import { createApiKey, createOrganization, listApiKeys, setApiKeyEnabled, setOrganizationLimits } from '@cairn/db/seed';
import { DEV_JSON_PATH } from '../../db/src/dev-config.ts';
import { UsageError, type FlagSpec } from './args.ts';
import { CLI_ACTOR, type Command, type CommandContext } from './command.ts';
import { ssoConfigure } from './sso.ts';

export type { Command } from './command.ts';

const JSON_FLAG: FlagSpec = { value: false, help: 'Print the result as JSON.' };

function text(ctx: CommandContext, name: string): string | undefined {
  const v = ctx.flags[name];
  return typeof v === 'string' ? v : undefined;
}

/** "view_dashboards,Manage Dashboards" or "all" → the permission list. */
function parsePermissionList(value: string): Permission[] {
  if (value.trim().toLowerCase() === 'all') return [...PERMISSIONS];
  const out: Permission[] = [];
  for (const part of value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const p = parsePermission(part);
    if (!p) throw new UsageError(`Unknown permission "${part}". Known: ${PERMISSIONS.join(', ')} (or "all").`, 'key create');
    if (!out.includes(p)) out.push(p);
  }
  if (out.length === 0) throw new UsageError('--permissions lists no permission.', 'key create');
  return out;
}

/** "datasources:dsr_1,dashboards:dsh_2" → resource restrictions. */
function parseRestrictions(value: string): { type: RestrictableResourceType; id: string }[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((part) => {
      const i = part.indexOf(':');
      const type = part.slice(0, i);
      const id = part.slice(i + 1).trim();
      if (i === -1 || !(RESTRICTABLE_RESOURCE_TYPES as readonly string[]).includes(type) || !id) {
        throw new UsageError(`Bad restriction "${part}": write TYPE:ID with TYPE one of ${RESTRICTABLE_RESOURCE_TYPES.join(', ')}.`, 'key create');
      }
      return { type: type as RestrictableResourceType, id };
    });
}

const orgCreate: Command = {
  name: 'org create',
  summary: 'Create an organization with its admin, the sample datasource and the sample dashboard.',
  usage: 'org create --name NAME --admin-email EMAIL [--admin-password PASSWORD] [--region eu|us] [--json]',
  flags: {
    name: { value: true, required: true, help: 'Organization name.', placeholder: 'NAME' },
    'admin-email': { value: true, required: true, help: 'Email of the first admin.', placeholder: 'EMAIL' },
    'admin-password': { value: true, help: 'Admin password (at least 8 characters); generated when omitted.', placeholder: 'PASSWORD' },
    region: { value: true, help: 'Region that holds the organization data: eu (default) or us.', placeholder: 'eu|us' },
    json: JSON_FLAG,
  },
  positionals: [],
  needsDatabase: true,
  async run(ctx) {
    const region = text(ctx, 'region') ?? 'eu';
    if (!isRegion(region)) throw new UsageError(`Unknown region "${region}"; use eu or us.`, this.name);
    // The shop itself is in the sample database (`npm run db:sample`, ARCHITECTURE D32), not in this one.
    const { db } = await ctx.db();
    const r = await createOrganization(
      db,
      { name: text(ctx, 'name')!, adminEmail: text(ctx, 'admin-email')!, adminPassword: text(ctx, 'admin-password'), region },
      { actor: CLI_ACTOR },
    );
    if (ctx.flags.json) {
      ctx.out(
        JSON.stringify(
          {
            organization_id: r.organization.id,
            name: r.organization.name,
            region: r.organization.region,
            admin: { id: r.admin.id, email: r.admin.email, password: r.adminPassword },
            sample_datasource_id: r.sampleDatasource.id,
            sample_dashboard_id: r.sampleDashboard.id,
          },
          null,
          2,
        ),
      );
      return;
    }
    ctx.out(`Created organization ${r.organization.name} (${r.organization.id}) in region ${r.organization.region}.`);
    ctx.out(`  admin:            ${r.admin.email} (${r.admin.id})`);
    ctx.out(`  admin password:   ${r.adminPassword}${text(ctx, 'admin-password') ? '' : '   (generated; it is not shown again)'}`);
    ctx.out(`  sample data:      ${r.sampleDatasource.id}`);
    ctx.out(`  sample dashboard: ${r.sampleDashboard.id} (${r.sampleDashboard.name}, ${r.sampleDashboard.reports.length} reports)`);
  },
};

/** "12" → 12, "none" → null (no limit); anything else is a usage error. */
function parseLimit(value: string, flag: string): number | null {
  const v = value.trim().toLowerCase();
  if (v === 'none' || v === 'unlimited') return null;
  if (!/^\d{1,7}$/.test(v) || Number(v) > 1_000_000) {
    throw new UsageError(`--${flag} takes a whole number from 0 to 1000000, or none (no limit); got "${value}".`, 'org limits');
  }
  return Number(v);
}

const orgLimits: Command = {
  name: 'org limits',
  summary: "Show or set an organization's analyst-seat and datasource limits (none by default).",
  usage: 'org limits --org ORG_ID [--analyst-seats N|none] [--datasources N|none] [--json]',
  flags: {
    org: { value: true, required: true, help: 'Organization id (org_…).', placeholder: 'ORG_ID' },
    'analyst-seats': {
      value: true,
      help: 'Analysts and admins who are not deactivated (pending invitations included); none removes the limit.',
      placeholder: 'N|none',
    },
    datasources: { value: true, help: 'Datasources, the sample datasource not counted; none removes the limit.', placeholder: 'N|none' },
    json: JSON_FLAG,
  },
  positionals: [],
  needsDatabase: true,
  async run(ctx) {
    const seats = text(ctx, 'analyst-seats');
    const sources = text(ctx, 'datasources');
    const organizationId = text(ctx, 'org')!;
    const { db } = await ctx.db();
    const limits = await setOrganizationLimits(
      db,
      {
        organizationId,
        ...(seats !== undefined ? { analystSeats: parseLimit(seats, 'analyst-seats') } : {}),
        ...(sources !== undefined ? { datasources: parseLimit(sources, 'datasources') } : {}),
      },
      { actor: CLI_ACTOR },
    );
    if (ctx.flags.json) {
      ctx.out(JSON.stringify(limits, null, 2));
      return;
    }
    const show = (n: number | null) => (n === null ? 'no limit' : String(n));
    ctx.out(`Limits of ${limits.name} (${limits.organization_id}):`);
    ctx.out(`  analyst seats: ${show(limits.analyst_seats)}`);
    ctx.out(`  datasources:   ${show(limits.datasources)}`);
  },
};

/**
 * The SECRET_KEY that seals the organization's private key: SECRET_KEY from the environment (the API
 * worker's), else the local stack's (`.data/secrets.json`, what `npm start` uses).
 */
function secretKeyForSealing(): string {
  if (process.env.SECRET_KEY) return process.env.SECRET_KEY;
  const local = join(REPO_ROOT, '.data/secrets.json');
  if (existsSync(local)) {
    const key = (JSON.parse(readFileSync(local, 'utf8')) as { SECRET_KEY?: string }).SECRET_KEY;
    if (key) return key;
  }
  throw new Error(
    "This organization has no SSH key yet, and making one needs the API's SECRET_KEY: set SECRET_KEY, or ask GET /organization once (it makes the key).",
  );
}

const orgSshKey: Command = {
  name: 'org ssh-key',
  summary: "Print an organization's SSH public key (made the first time) and the authorized_keys line for SSH tunnels.",
  usage: 'org ssh-key --org ORG_ID [--json]',
  flags: {
    org: { value: true, required: true, help: 'Organization id (org_…).', placeholder: 'ORG_ID' },
    json: JSON_FLAG,
  },
  positionals: [],
  needsDatabase: true,
  async run(ctx) {
    const organizationId = text(ctx, 'org')!;
    const { db } = await ctx.db();
    const [row] = await db.select({ pub: organizations.ssh_public_key }).from(organizations).where(eq(organizations.id, organizationId)).limit(1);
    if (!row) throw new Error(`Organization ${organizationId} does not exist.`);
    const publicKey = row.pub ?? (await organizationSshKey(db, organizationId, secretKeyForSealing())).publicKey;
    if (ctx.flags.json) {
      ctx.out(JSON.stringify({ organization_id: organizationId, ssh_public_key: publicKey, authorized_keys_line: authorizedKeysLine(publicKey) }, null, 2));
      return;
    }
    ctx.out(publicKey);
    ctx.out('');
    ctx.out("For SSH tunnels, add this line to ~/.ssh/authorized_keys of the datasource's ssh_tunnel_user on the SSH server:");
    ctx.out(`  ${authorizedKeysLine(publicKey)}`);
  },
};

const keyCreate: Command = {
  name: 'key create',
  summary: 'Create an API key; its secret is printed once.',
  usage: 'key create --org ORG_ID --name NAME --permissions LIST|all [--restrict TYPE:ID,...] [--json]',
  flags: {
    org: { value: true, required: true, help: 'Organization id (org_…).', placeholder: 'ORG_ID' },
    name: { value: true, required: true, help: 'A name that says what the key is for.', placeholder: 'NAME' },
    permissions: {
      value: true,
      required: true,
      help: `Comma-separated permissions, e.g. view_dashboards,"Manage Dashboards"; or all. Known: ${PERMISSIONS.join(', ')}.`,
      placeholder: 'LIST',
    },
    restrict: {
      value: true,
      help: `Limit every permission to these resources: TYPE:ID,... with TYPE in ${RESTRICTABLE_RESOURCE_TYPES.join(', ')}.`,
      placeholder: 'TYPE:ID,...',
    },
    json: JSON_FLAG,
  },
  positionals: [],
  needsDatabase: true,
  async run(ctx) {
    const permissions = parsePermissionList(text(ctx, 'permissions')!);
    const restrict = text(ctx, 'restrict');
    const resources = restrict ? parseRestrictions(restrict) : null;
    const grants: Grant[] = permissions.map((permission) => ({ permission, resources }));
    const { db } = await ctx.db();
    const { apiKey, secret } = await createApiKey(db, { organizationId: text(ctx, 'org')!, name: text(ctx, 'name')!, grants }, { actor: CLI_ACTOR });
    if (ctx.flags.json) {
      ctx.out(
        JSON.stringify({ id: apiKey.id, name: apiKey.name, organization_id: apiKey.organization_id, key: secret, permissions: apiKey.permissions }, null, 2),
      );
      return;
    }
    ctx.out(`Created API key ${apiKey.name} (${apiKey.id}) for organization ${apiKey.organization_id}.`);
    ctx.out(`  permissions: ${permissions.map((p) => PERMISSION_LABELS[p]).join(', ')}`);
    if (resources) ctx.out(`  restricted to: ${resources.map((r) => `${r.type}:${r.id}`).join(', ')}`);
    ctx.out('');
    ctx.out(`  ${secret}`);
    ctx.out('');
    ctx.out('Store this key now: it will not be shown again (Cairn keeps only a hash of it).');
  },
};

const keyList: Command = {
  name: 'key list',
  summary: "List an organization's API keys (never their secrets).",
  usage: 'key list --org ORG_ID [--json]',
  flags: { org: { value: true, required: true, help: 'Organization id (org_…).', placeholder: 'ORG_ID' }, json: JSON_FLAG },
  positionals: [],
  needsDatabase: true,
  async run(ctx) {
    const { db } = await ctx.db();
    const keys = await listApiKeys(db, text(ctx, 'org')!);
    if (ctx.flags.json) {
      ctx.out(JSON.stringify(keys, null, 2));
      return;
    }
    if (keys.length === 0) {
      ctx.out('No API keys.');
      return;
    }
    for (const k of keys) {
      const perms = k.permissions.map((g) => g.permission + (g.resources ? ` [${g.resources.map((r) => `${r.type}:${r.id}`).join(', ')}]` : '')).join(', ');
      ctx.out(`${k.id}  ${k.enabled ? 'enabled ' : 'disabled'}  cairn_${k.key_id}_…  ${k.name}`);
      ctx.out(`    created ${k.created_at.toISOString()}; ${perms}`);
    }
  },
};

function keyToggle(enabled: boolean): Command {
  const verb = enabled ? 'enable' : 'disable';
  return {
    name: `key ${verb}`,
    summary: enabled ? 'Enable an API key again.' : 'Disable an API key (requests with it are refused).',
    usage: `key ${verb} KEY_ID`,
    flags: {},
    positionals: ['KEY_ID'],
    needsDatabase: true,
    async run(ctx) {
      const id = ctx.positionals[0]!;
      if (!/^key_[0-9A-Za-z]+$/.test(id)) {
        throw new UsageError(`"${id}" is not an API key id (they look like key_…; see \`key list\`).`, this.name);
      }
      const { db } = await ctx.db();
      const row = await setApiKeyEnabled(db, { id, enabled }, { actor: CLI_ACTOR });
      ctx.out(`API key ${row.name} (${row.id}) is now ${enabled ? 'enabled' : 'disabled'}.`);
    },
  };
}

const devCredentials: Command = {
  name: 'dev credentials',
  summary: 'Print the development URLs and credentials written by `npm start` (.cairn/dev.json).',
  usage: 'dev credentials',
  flags: {},
  positionals: [],
  needsDatabase: false,
  async run(ctx) {
    let content: string;
    try {
      content = readFileSync(DEV_JSON_PATH, 'utf8');
    } catch {
      throw new Error(`${DEV_JSON_PATH} does not exist yet: run \`npm start\` first.`);
    }
    ctx.out(content.trimEnd());
  },
};

export const COMMANDS: readonly Command[] = [
  orgCreate,
  orgLimits,
  orgSshKey,
  keyCreate,
  keyList,
  keyToggle(false),
  keyToggle(true),
  ssoConfigure,
  devCredentials,
];
