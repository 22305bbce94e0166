// bench/connectors.ts imports the connectors, whose workerd socket module is only loaded inside workerd.
declare module 'cloudflare:sockets';
