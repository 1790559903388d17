import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { TempFolders } from '../temp.js';
import type { ScenarioChannel, ScenarioProvider } from './channels.js';
import { runScenario, type ScenarioOutcome } from './runner.js';
import { declares, missingCapabilities, nativeInstead, type ProviderScenario } from './scenario.js';
import { providerScenarios, whyNotApplicable } from './scenarios.js';

/**
 * Registers one vitest test per scenario on one provider channel. A scenario the provider
 * cannot run is not skipped: its test says which declared-false capability rules it out
 * (and checks the declaration still says so).
 */
export function describeScenarios(
  title: string,
  provider: ScenarioProvider,
  channel: ScenarioChannel,
  options: { timeoutMs?: number; scenarios?: readonly ProviderScenario[] } = {},
): void {
  const folders = new TempFolders();
  const running: ScenarioOutcome[] = [];
  afterEach(() => running.splice(0).forEach((o) => o.close()));
  afterAll(() => folders.removeAll());

  describe(title, () => {
    for (const scenario of options.scenarios ?? providerScenarios) {
      const missing = missingCapabilities(scenario, provider.capabilities);
      const native = nativeInstead(scenario, provider.capabilities);
      const why = whyNotApplicable(scenario, provider);
      if (why.length > 0) {
        it(`${scenario.name}: not applicable because ${why.join(', ')}`, () => {
          expect(missing.map((f) => declares(provider.capabilities, f))).toEqual(missing.map(() => false));
          expect(native.map((f) => declares(provider.capabilities, f))).toEqual(native.map(() => true));
          expect(whyNotApplicable(scenario, provider)).toEqual(why);
        });
        continue;
      }
      it(
        scenario.name,
        async () => {
          const dir = folders.make(`baton-${provider.id}-${channel.kind}-`);
          const place = {
            cwd: realpathSync(folders.make(`baton-${provider.id}-ws-`)),
            dir,
            checkpointsRoot: join(dir, 'checkpoints'),
          };
          running.push(await runScenario(scenario.drive, channel.open(scenario, place), place));
        },
        options.timeoutMs,
      );
    }
  });
}
