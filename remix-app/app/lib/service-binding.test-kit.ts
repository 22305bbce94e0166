import type { ServiceBinding } from './env.server';

/** What a fake service binding answers (unit tests of the app's API calls). */
export type Handler = (req: Request) => Response | Promise<Response>;

/** A service binding that answers with `handler` and keeps every request it was sent in `seen`. */
export const binding = (handler: Handler): ServiceBinding & { seen: Request[] } => {
  const seen: Request[] = [];
  return {
    seen,
    async fetch(input, init) {
      const req = input instanceof Request ? input : new Request(input, init);
      seen.push(req);
      return handler(req);
    },
  };
};
