import { newId } from '@cairn/core';
import { exportJobs } from '@cairn/db';
import type { SecurityCaseFactory } from './cases.ts';
import { addRestrictionSiblings } from './dashboards.ts';
import { db } from '../fixtures.ts';

export const securityCases: SecurityCaseFactory = async ({ org }) => {
  // Jobs are created by the export calls (with the engine); here they are written directly.
  const [id, doomed] = [newId('export_job'), newId('export_job')];
  const dashboard = org.sampleDashboard.id;
  const report = org.sampleDashboard.reports[0]!.id;
  await db()
    .insert(exportJobs)
    .values([
      { id, organization_id: org.organization.id, kind: 'dashboard_pdf', dashboard_id: dashboard, job_status: 'success', file_key: 'eu/x.pdf' },
      { id: doomed, organization_id: org.organization.id, kind: 'report_csv', report_id: org.sampleDashboard.reports[0]!.id, created_by: 'key_nobody' },
    ]);
  await addRestrictionSiblings(org.organization.id, [dashboard]);
  const restrictedTo = { type: 'dashboards' as const, id: dashboard };
  return [
    { method: 'GET', path: `/export_jobs/${id}`, permissions: ['view_dashboards'], restrictedTo },
    { method: 'DELETE', path: `/export_jobs/${doomed}`, permissions: ['manage_dashboards'], restrictedTo },
    // Creating jobs (the test workers have no renderer: PDF/PNG jobs end in error, after the answer).
    { method: 'POST', path: `/dashboards/${dashboard}/export_pdf`, body: {}, permissions: ['view_dashboards'], restrictedTo },
    { method: 'POST', path: `/dashboards/${dashboard}/export_png`, body: { color_mode: 'dark' }, permissions: ['view_dashboards'], restrictedTo },
    { method: 'POST', path: `/reports/${report}/export_pdf`, body: {}, permissions: ['view_dashboards'], restrictedTo },
    { method: 'POST', path: `/reports/${report}/export_png`, body: {}, permissions: ['view_dashboards'], restrictedTo },
    { method: 'POST', path: `/reports/${report}/export_csv`, body: {}, permissions: ['view_dashboards'], restrictedTo },
  ];
};
