import { join } from 'node:path';
import { ManualClock } from '../../../src/domain/sources.js';
import type { Store } from '../../../src/persistence/store.js';
import { createHarness, type Harness } from '../runtime.js';
import type { ChannelSession, RunPlace } from './channels.js';
import { declares, type ScenarioContext } from './scenario.js';

export interface ScenarioOutcome {
  h: Harness;
  /** Every store the run opened (restarts open more). */
  stores: Store[];
  /** Stops the agent processes and closes the stores. */
  close(): void;
}

/**
 * Runs one scenario's `drive` on a fresh Baton wired to a channel session, the same way
 * live, recorded and replayed. On success the caller closes the outcome; on failure the
 * run is closed and the error says where the channel stood.
 */
export async function runScenario(
  drive: (ctx: ScenarioContext) => Promise<void>,
  session: ChannelSession,
  place: RunPlace,
): Promise<ScenarioOutcome> {
  const stores: Store[] = [];
  // The channel's thread defaults go on every thread the scenario creates, after a restart too.
  const defaults = session.threadDefaults;
  const withDefaults = (h: Harness): Harness =>
    defaults ? { ...h, thread: (extra = {}) => h.thread({ ...defaults, ...extra }) } : h;
  const h = withDefaults(
    createHarness(session.harness, join(place.dir, 'baton.sqlite'), 'a', new ManualClock(), (store) =>
      stores.push(store),
    ),
  );
  const close = () => {
    session.stop();
    stores.forEach((s) => s.close());
  };
  try {
    await drive({
      h,
      cwd: place.cwd,
      live: session.live,
      modelAsked: (n) => session.modelAsked(n),
      kill: (threadId) => session.kill(threadId),
      declares: (flag) => declares(session.capabilities, flag),
      restart: async () => {
        session.stop();
        await h.runtime.settle();
        return withDefaults(h.restart());
      },
    });
    session.finish?.();
  } catch (error) {
    close();
    const where = session.describe?.();
    if (!where || !(error instanceof Error)) throw error;
    throw new Error(`${error.message}\n${where}`, { cause: error });
  }
  return { h, stores, close };
}
