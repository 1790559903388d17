#!/usr/bin/env node
// The `baton` command: runs the TypeScript CLI through tsx (a pinned dependency).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
