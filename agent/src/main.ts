import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { session } from './session.ts';

const USAGE =
  'Usage: cairn-agent --server <API base URL> --agent <agent_id> --secret <secret_key>\n' +
  '(npm run agent -- --server … in a checkout of Cairn). The agent id and secret key come from Administration → Agents.';

const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const log = (line: string) => console.log(`${new Date().toISOString()} cairn-agent: ${line}`);

function options() {
  try {
    const { values } = parseArgs({
      options: { server: { type: 'string' }, agent: { type: 'string' }, secret: { type: 'string' }, help: { type: 'boolean' } },
    });
    const server = values.server ?? process.env.CAIRN_AGENT_SERVER;
    const agentId = values.agent ?? process.env.CAIRN_AGENT_ID;
    const secret = values.secret ?? process.env.CAIRN_AGENT_SECRET;
    if (values.help) {
      console.log(USAGE);
      process.exit(0);
    }
    if (!server || !agentId || !secret) throw new Error('--server, --agent and --secret are required.');
    new URL(server);
    return { server, agentId, secret };
  } catch (err) {
    console.error(`cairn-agent: ${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
}

/** Reconnects with exponential backoff (1 s doubling to 30 s, with jitter); a refused secret ends the process with exit code 1. */
async function main() {
  const opts = { ...options(), version, log };
  let backoff = 1_000;
  log(`version ${version}, connecting to ${opts.server} as agent ${opts.agentId}`);
  for (;;) {
    const end = await session(opts, () => log('connected'));
    if (end.refused) {
      console.error(`cairn-agent: ${end.message}`);
      process.exit(1);
    }
    if (end.lastedMs > 30_000) backoff = 1_000;
    const wait = Math.round(backoff * (0.8 + Math.random() * 0.4));
    log(`${end.message}; reconnecting in ${(wait / 1000).toFixed(1)} s`);
    await new Promise((r) => setTimeout(r, wait));
    backoff = Math.min(backoff * 2, 30_000);
  }
}

for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    log(`${sig}: stopping`);
    process.exit(0);
  });
}

await main();
