import type { SecurityCaseFactory } from './cases.ts';
import { call, jsonApi } from '../fixtures.ts';

export const securityCases: SecurityCaseFactory = async ({ key }) => {
  const invite = async (email: string) => (await call('/users/invite', { key, method: 'POST', body: { email, role: 'viewer' } })).json.data.id as string;
  const stamp = Math.random().toString(36).slice(2, 10);
  const u = await invite(`sec-a-${stamp}@example.test`);
  const pending = await invite(`sec-b-${stamp}@example.test`);
  const group = (await jsonApi('/user_groups', 'POST', { type: 'user_groups', attributes: { name: `Sec ${stamp}` } }, key)).json.data.id as string;
  return [
    { method: 'GET', path: '/users', permissions: ['view_users'], ownsResource: false },
    { method: 'GET', path: `/users/${u}`, permissions: ['view_users'] },
    {
      method: 'PATCH',
      path: `/users/${u}`,
      jsonapi: true,
      body: { data: { type: 'users', id: u, attributes: { role: 'viewer' } } },
      permissions: ['manage_users'],
    },
    { method: 'POST', path: `/users/${u}/deactivate`, permissions: ['manage_users'] },
    { method: 'POST', path: `/users/${u}/activate`, body: { role: 'viewer' }, permissions: ['manage_users'] },
    { method: 'POST', path: '/users/invite', body: { email: `sec-c-${stamp}@example.test` }, permissions: ['manage_users'], ownsResource: false },
    { method: 'POST', path: `/users/invite/${pending}`, permissions: ['manage_users'] },
    { method: 'DELETE', path: `/users/invite/${pending}`, permissions: ['manage_users'] },
    { method: 'GET', path: '/user_groups', permissions: ['view_users'], ownsResource: false },
    {
      method: 'POST',
      path: '/user_groups',
      jsonapi: true,
      body: { data: { type: 'user_groups', attributes: { name: `Sec2 ${stamp}` } } },
      permissions: ['manage_users'],
      ownsResource: false,
    },
    { method: 'GET', path: `/user_groups/${group}`, permissions: ['view_users'] },
    {
      method: 'PATCH',
      path: `/user_groups/${group}`,
      jsonapi: true,
      body: { data: { type: 'user_groups', id: group, attributes: { description: 'x' } } },
      permissions: ['manage_users'],
    },
    { method: 'DELETE', path: `/user_groups/${group}`, permissions: ['manage_users'] },
  ];
};
