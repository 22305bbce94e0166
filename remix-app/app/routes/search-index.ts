/** `GET /search-index-{tag}.json`, one route per tag (see routes.ts and lib/search-index.server.ts). */
import type { Route } from './+types/search-index';
import { serveSearchIndex } from '../lib/search-index.server';

export function loader({ request }: Route.LoaderArgs) {
  return serveSearchIndex(request);
}

export function action({ request }: Route.ActionArgs) {
  return serveSearchIndex(request);
}
