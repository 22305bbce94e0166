import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../../env.ts';

/** Routes of this resource (being written). */
export const filterRoutes = new OpenAPIHono<AppEnv>();
