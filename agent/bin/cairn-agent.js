#!/usr/bin/env node
// The agent is written in TypeScript; tsx loads it without a build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
