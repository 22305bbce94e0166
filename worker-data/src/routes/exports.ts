import type { Hono } from 'hono';
import { ApiError, verifyDataToken } from '@cairn/core';
import { contentDisposition } from '@cairn/core/export/index';
import type { AppEnv } from '../env.ts';
import { withSql } from '../db.ts';
import { assertOrgRegion } from '../results.ts';
import { exportObjectKey } from '@cairn/core/results/object';

const JOB_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The token of `?token=` (the file_url of an export job) or of `Authorization: Data <token>`. */
function tokenOf(header: string | undefined, query: string | undefined): string {
  const m = /^Data\s+(\S+)$/i.exec((header ?? '').trim());
  const token = m?.[1] ?? query;
  if (!token) {
    throw new ApiError('unauthorized', 'Open the file_url of the export job as given (it carries its token), or send "Authorization: Data <token>".', {
      source: { parameter: 'token' },
    });
  }
  return token;
}

/**
 * `GET /exports/{jobId}?token=…`: the file of a finished export job (PDF, PNG or CSV), streamed from
 * its object in the region's bucket. The token is a data token of this region for the key `export/{jobId}`, issued
 * with the job's file_url (valid for minutes); the job must still be a success of the token's
 * organization and its file not yet expired.
 */
export function exportRoutes(app: Hono<AppEnv>) {
  app.get('/exports/:jobId', async (c) => {
    const jobId = c.req.param('jobId');
    if (!JOB_ID.test(jobId)) throw new ApiError('bad_request', 'That is not an export job id.', { source: { parameter: 'jobId' } });
    const claims = await verifyDataToken(tokenOf(c.req.header('authorization'), c.req.query('token')), c.env.DATA_TOKEN_SECRET, {
      region: c.env.REGION,
      kind: 'data',
    });
    if (claims.key !== `export/${jobId}`) {
      throw new ApiError('invalid_data_token', 'This token was issued for another file.', { source: { parameter: 'token' } });
    }
    return withSql(c, async (db) => {
      const [job] = await db.sql<{ file_name: string | null; content_type: string | null; file_size: number | null; region: string }[]>`
        select j.file_name, j.content_type, j.file_size, o.region from export_jobs j join organizations o on o.id = j.organization_id
         where j.id = ${jobId} and j.organization_id = ${claims.org} and j.job_status = 'success' and j.file_key = ${claims.key}
           and (j.expires_at is null or j.expires_at > now())`;
      if (job) assertOrgRegion(c.env, job.region);
      if (!job) throw new ApiError('not_found', 'No file for this export job: it was deleted, or its file has expired. Start a new export.');
      const headers: Record<string, string> = {
        'content-type': job.content_type ?? 'application/octet-stream',
        'content-disposition': contentDisposition(job.file_name ?? `${jobId}`),
        'cache-control': 'private, no-store',
        'x-content-type-options': 'nosniff',
      };
      if (job.file_size !== null) headers['content-length'] = String(job.file_size);
      // The file is one object of the region's bucket (D55, D61).
      const obj = await c.env.RESULTS.get(exportObjectKey(jobId));
      db.close();
      if (!obj) throw new ApiError('not_found', 'No file for this export job: it was deleted, or its file has expired. Start a new export.');
      return new Response(obj.body, { headers });
    });
  });
}
