import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unstable_readConfig } from 'wrangler';
import { checkHealth, configProblems, healthTargets, WORKERS, type ResolvedConfig } from '../scripts/lib/deploy.ts';

/** The deploy checks of scripts/deploy.ts (D53) against the repository's real wrangler configs. */
const read = (config: string, env?: string) => unstable_readConfig({ config, env }, { hideWarnings: true }) as unknown as ResolvedConfig;

describe('each region’s worker configs', () => {
  for (const region of ['eu', 'us'] as const) {
    for (const w of WORKERS.filter((x) => x.perRegion)) {
      it(`${w.name} --env ${region} declares every binding its code reads`, () => {
        const cfg = read(w.config, region);
        expect(configProblems(w, cfg, region, false)).toEqual([]);
        expect(cfg.name).toBe(`cairn-${w.name}-${region}`);
        // A real deploy refuses the repository's placeholder Hyperdrive ids until they are replaced.
        expect(configProblems(w, cfg, region, true).join('\n')).toContain('placeholder id');
      });
    }
  }

  it('the regions use different Hyperdrive configs (each its own database)', () => {
    const api = WORKERS.find((w) => w.name === 'api')!;
    const id = (r: string) => read(api.config, r).hyperdrive!.find((h) => h.binding === 'HYPERDRIVE')!.id;
    expect(id('eu')).not.toBe(id('us'));
  });

  it('finds a binding that is missing or a class without a migration', () => {
    const api = WORKERS.find((w) => w.name === 'api')!;
    const cfg = read(api.config, 'eu');
    const broken: ResolvedConfig = {
      ...cfg,
      hyperdrive: cfg.hyperdrive!.filter((h) => h.binding !== 'SAMPLE_DB'),
      migrations: [],
      triggers: { crons: [] },
      secrets: { required: [] },
      vars: { ...cfg.vars, REGION: 'us' },
    };
    const problems = configProblems(api, broken, 'eu', false).join('\n');
    for (const text of ['SAMPLE_DB is not declared', 'DbPool has no migration', 'no cron trigger', 'secret SECRET_KEY', 'vars.REGION is "us"']) {
      expect(problems).toContain(text);
    }
  });
});

describe('health checks after a deploy', () => {
  let server: Server;
  let base = '';
  const answers: Record<string, unknown> = {};
  beforeAll(async () => {
    server = createServer((req, res) => {
      const body = answers[req.url ?? ''];
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? { ok: false }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const addr = server.address() as { port: number };
    base = `http://127.0.0.1:${addr.port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('passes when both servers answer ok for the region, and names the one that does not', async () => {
    const targets = healthTargets({ API_BASE_URL_US: `${base}/api/`, DATA_BASE_URL_US: `${base}/data` }, 'us');
    expect(targets.map((t) => t.url)).toEqual([`${base}/data/health`, `${base}/api/health`]);
    answers['/data/health'] = { ok: true, region: 'us' };
    answers['/api/health'] = { ok: true, region: 'eu' };
    const problems = await checkHealth(targets, 'us', 0);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('api-us');
    answers['/api/health'] = { ok: true, region: 'us' };
    expect(await checkHealth(targets, 'us', 0)).toEqual([]);
  });
});
