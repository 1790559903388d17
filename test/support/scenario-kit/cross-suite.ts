import { afterAll, afterEach, describe, it } from 'vitest';
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { TempFolders } from '../temp.js';
import type { RunPlace } from './channels.js';
import type { CrossChannel } from './cross-channel.js';
import type { CrossScenario } from './cross-scenario.js';
import { runScenario, type ScenarioOutcome } from './runner.js';

/**
 * A cross run's folders: its data in `dir`, its workspace `ws/` in a folder of its own
 * (`root`), where a scenario may put siblings of the workspace.
 */
export function crossPlace(dir: string, root: string): RunPlace {
  const cwd = join(realpathSync(root), 'ws');
  mkdirSync(cwd);
  return { cwd, dir, checkpointsRoot: join(dir, 'checkpoints') };
}

/** Runs one cross scenario on a fresh Baton wired to the channel (what the suite and the recorder do). */
export function runCrossScenario(
  scenario: CrossScenario,
  channel: CrossChannel,
  place: RunPlace,
): Promise<ScenarioOutcome> {
  const session = channel.open(scenario, place);
  return runScenario((ctx) => scenario.drive({ ...ctx, model: session.model }), session, place);
}

/**
 * Registers one vitest test per cross scenario on a multi-provider channel. After each test
 * the run's Baton is closed and every agent process it started is gone; `afterGone` checks
 * what the test file wants of that (no agent left, say).
 */
export function describeCrossScenarios(
  title: string,
  channel: CrossChannel,
  scenarios: readonly CrossScenario[],
  options: { timeoutMs?: number; afterGone?: () => void } = {},
): void {
  const folders = new TempFolders();
  const running: ScenarioOutcome[] = [];
  afterEach(async () => {
    running.splice(0).forEach((o) => o.close());
    await channel.gone();
    options.afterGone?.();
  });
  afterAll(() => folders.removeAll());

  describe(title, () => {
    for (const scenario of scenarios) {
      it(
        scenario.name,
        async () => {
          const dir = folders.make(`baton-cross-${channel.kind}-`);
          running.push(await runCrossScenario(scenario, channel, crossPlace(dir, folders.make('baton-cross-ws-'))));
        },
        options.timeoutMs,
      );
    }
  });
}
