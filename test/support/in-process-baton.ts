import { afterEach } from 'vitest';
import { pino } from 'pino';
import { startBaton, type BatonApp } from '../../src/app/baton-app.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { CommandAck } from '../../src/domain/command-ack.js';
import type { ModelTurn } from '../../src/providers/model/scripted-model-server.js';
import { TempFolders } from './temp.js';

/** A Baton of the test's: the real app, its Codex on the offline model answering `turns` in order ("ok" when they run out). */
export interface InProcessBaton {
  app: BatonApp;
  turns: ModelTurn[];
  /** Dispatches a command (a commandId is made); resolves with its ack. */
  command(cmd: Record<string, unknown>): Promise<CommandAck>;
  /** The same, throwing on a refusal: its result. */
  ok<R = Record<string, unknown>>(cmd: Record<string, unknown>): Promise<R>;
  /** Resolves once `condition` holds, checked after each committed batch of events. */
  until(condition: () => boolean, what: string, timeoutMs?: number): Promise<void>;
}

/**
 * For a vitest file: Batons started in this process by `startBaton` (what `baton serve`
 * runs) on fresh data dirs, from an environment and overrides as a user would give them;
 * each stopped and its folders removed after the test.
 */
export function useInProcessBaton(prefix: string) {
  const folders = new TempFolders();
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    folders.removeAll();
  });
  let n = 0;
  return {
    folders,
    onCleanup: (c: () => Promise<void> | void) => cleanups.push(c),
    async start(
      env: Record<string, string> = {},
      overrides: Partial<Record<keyof Config, unknown>> = { model: 'scripted' },
    ): Promise<InProcessBaton> {
      const config = loadConfig(env, {
        dataDir: folders.make(`${prefix}-`),
        port: 0,
        token: `${prefix}-token-0123456789abcdef`,
        ...overrides,
      });
      const turns: ModelTurn[] = [];
      const app = await startBaton(config, pino({ level: 'silent' }), {
        responder: () => turns.shift() ?? { kind: 'text', text: 'ok' },
      });
      cleanups.push(() => app.stop());
      const command = (cmd: Record<string, unknown>) =>
        app.runtime.dispatch({ commandId: `cmd_${prefix.replace(/\W/g, '_')}_${++n}`, ...cmd });
      return {
        app,
        turns,
        command,
        async ok<R>(cmd: Record<string, unknown>): Promise<R> {
          const ack = await command(cmd);
          if (!ack.ok) throw new Error(JSON.stringify(ack.error));
          return ack.result as R;
        },
        until: (condition, what, timeoutMs = 60_000) =>
          new Promise((resolve, reject) => {
            const timer = setTimeout(() => (off(), reject(new Error(`timed out waiting for ${what}`))), timeoutMs);
            const check = () => {
              if (!condition()) return;
              clearTimeout(timer);
              off();
              resolve();
            };
            const off = app.runtime.onEvents(check);
            check();
          }),
      };
    },
  };
}
