import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';
import { serviceContext } from '../../lib/context.ts';
import { defineRoute } from '../../lib/routes.ts';
import { errorResponses, idParam } from '../../lib/openapi.ts';
import { runAlertQuery } from './run.ts';

/** Action calls of SQL alerts (registered in app.ts beside sqlAlertRoutes). */
export const sqlAlertActionRoutes = new OpenAPIHono<AppEnv>();

const RunAnswer = z
  .object({
    execution_id: z
      .string()
      .openapi({ description: 'Follow it with GET /executions/{id}; the alert result appears in GET /sql_alerts/{id}/results once it has been evaluated.' }),
  })
  .openapi('SqlAlertRun');

defineRoute(
  sqlAlertActionRoutes,
  createRoute({
    method: 'post',
    path: '/sql_alerts/{id}/run_query',
    tags: ['SQL alerts'],
    summary: 'Run a SQL alert now',
    description: [
      "Runs the alert's SQL on its datasource now, whatever its run_schedule, and answers at once with the execution id.",
      'When the query has finished, the trigger condition is evaluated (has_results, no_results, or a comparison of the single value with trigger_value),',
      'e-mails are sent per email_condition (error_emails when the run could not be evaluated), a result is recorded (ok, alert_triggered, alert_error, query_error, internal_error, internal_timeout, cancelled)',
      "and the alert's last_* fields are updated. While it runs, the alert shows `running_execution_id`; a second run meanwhile is a 422 invalid_state.",
      'A datasource that cannot run queries (no driver for its type, disabled) and SQL that does not compile (a snippet cycle) are 422s.',
      'Needs Manage Alerts, reaching the alert and its datasource. No request body.',
    ].join(' '),
    'x-permissions': ['manage_alerts'],
    request: { params: idParam },
    responses: {
      200: { description: 'The run started', content: { 'application/json': { schema: RunAnswer } } },
      ...errorResponses(401, 403, 404, 422, 429),
    },
  }),
  async (c) => c.json(await runAlertQuery(serviceContext(c), c.req.param('id')!)),
);
