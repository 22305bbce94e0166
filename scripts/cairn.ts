/** Operator CLI entry point: `npm run cairn -- --help`. See scripts/cairn/main.ts. */
import { run } from './cairn/main.ts';

process.exitCode = await run(process.argv.slice(2));
