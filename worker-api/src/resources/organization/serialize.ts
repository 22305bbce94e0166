import type { organizations } from '@cairn/db';
import { resource } from '../../lib/jsonapi.ts';

type OrgRow = typeof organizations.$inferSelect;

export function serializeOrganization(baseUrl: string, o: OrgRow, usage: { analysts: number; datasources: number }, sshPublicKey: string) {
  const doc = resource(baseUrl, 'organizations', o.id, {
    name: o.name,
    time_zone: o.time_zone,
    region: o.region,
    plan: o.plan,
    plan_analyst_seats: o.plan_analyst_seats,
    analyst_seats_used: usage.analysts,
    plan_datasources: o.plan_datasources,
    datasources_used: usage.datasources,
    ssh_public_key: sshPublicKey,
    created_at: o.created_at.toISOString(),
    updated_at: o.updated_at.toISOString(),
  });
  // One organization per caller: its address is /organization, not /organizations/{id}.
  return { ...doc, links: { self: `${baseUrl}/organization` } };
}
