import { afterEach } from 'vitest';
import { pino } from 'pino';
import { BatonClient } from '../../src/client/baton-client.js';
import { loadConfig } from '../../src/config.js';
import type { Responder } from '../../src/providers/model/scripted-model-server.js';
import { startBaton, type BatonApp } from '../../src/app/baton-app.js';
import { tempDir } from './temp.js';

export interface Batons {
  /** A real Baton (store, runtime, Codex provider, offline model) on a loopback port. */
  baton(responder?: Responder): Promise<BatonApp>;
  /** A typed client connected to it. */
  client(app: BatonApp): Promise<BatonClient>;
  /** Runs after the test, before the Batons stop (newest first). */
  onCleanup(cleanup: () => Promise<void> | void): void;
}

/** Real Batons for a vitest file: each test's Batons, clients and folders go after it. */
export function useBatons(token = 'test-token-0123456789'): Batons {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  return {
    async baton(responder) {
      const data = tempDir('baton-app-');
      const app = await startBaton(
        loadConfig({}, { dataDir: data.dir, port: 0, token, model: 'scripted' }),
        pino({ level: 'silent' }),
        responder ? { responder } : {},
      );
      cleanups.push(data.cleanup, () => app.stop());
      return app;
    },
    async client(app) {
      const c = await BatonClient.connect(app.url, app.token);
      cleanups.push(() => c.close());
      return c;
    },
    onCleanup: (cleanup) => void cleanups.push(cleanup),
  };
}
