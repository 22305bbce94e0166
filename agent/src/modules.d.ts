/** node-oracledb ships no types; the agent uses a handful of calls (drivers/oracle.ts) and types them loosely. */
declare module 'oracledb';
/** vertica-nodejs ships no types either (drivers/vertica.ts). */
declare module 'vertica-nodejs';
declare module 'v-protocol/dist/parser.js';
