import { mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GoneChannel } from '../test/support/scenario-kit/agent-providers.js';
import { runScenario } from '../test/support/scenario-kit/runner.js';
import type { ProviderScenario } from '../test/support/scenario-kit/scenario.js';

/** What the record scripts share: their `--flag value` arguments, the record loop, and pruning old transcripts. */

/** Every value given to `flag` (`--scenario a --scenario b`: both). */
export const valuesOf = (args: readonly string[], flag: string): string[] =>
  args.flatMap((arg, i) => (args[i - 1] === flag ? [arg] : []));

/** Exits 2 when a named scenario is not among those `who` runs. */
export function refuseUnknownScenarios(
  named: readonly string[],
  applicable: readonly ProviderScenario[],
  who: string,
): void {
  const unknown = named.filter((name) => !applicable.some((s) => s.name === name));
  if (unknown.length === 0) return;
  console.error(
    `not applicable to ${who} (or unknown): ${unknown.join(', ')}; applicable: ${applicable.map((s) => s.name).join(', ')}`,
  );
  process.exit(2);
}

/** The named scenarios, or every applicable one when none is named. */
export const wantedScenarios = (named: readonly string[], applicable: ProviderScenario[]): ProviderScenario[] =>
  named.length > 0 ? applicable.filter((s) => named.includes(s.name)) : applicable;

export interface RecordLoop {
  channel: GoneChannel;
  scenarios: readonly ProviderScenario[];
  /** Names a scenario in what is printed (`claude-agent-acp multi_turn`). */
  label(scenario: ProviderScenario): string;
  /** Prefixes the run's temp folders. */
  tempPrefix: string;
  /** Clears the scripted model between scenarios. */
  resetModel(): void;
  /** The agent processes left running after a scenario (there must be none). */
  leftProcesses(): string[];
}

/**
 * Records each scenario on the channel in fresh temp folders, and returns the labels of those
 * that failed (a failed one writes nothing) or left agent processes behind.
 */
export async function recordScenarios(loop: RecordLoop): Promise<{ failed: string[]; recorded: number }> {
  const failed: string[] = [];
  let recorded = 0;
  for (const scenario of loop.scenarios) {
    const label = loop.label(scenario);
    const dir = mkdtempSync(join(tmpdir(), `${loop.tempPrefix}-`));
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), `${loop.tempPrefix}-ws-`)));
    const place = { cwd, dir, checkpointsRoot: join(dir, 'checkpoints') };
    try {
      const outcome = await runScenario(scenario.drive, loop.channel.open(scenario, place), place);
      outcome.close();
      recorded += 1;
      console.log(`recorded ${label}`);
    } catch (error) {
      failed.push(label);
      console.error(`FAILED ${label}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await loop.channel.gone();
      loop.resetModel();
      rmSync(dir, { recursive: true, force: true });
      rmSync(cwd, { recursive: true, force: true });
    }
    const left = loop.leftProcesses();
    if (left.length > 0) {
      console.error(`agent processes left after ${label}: ${left.join(', ')}`);
      failed.push(`${label} (processes left)`);
    }
  }
  return { failed, recorded };
}

/**
 * After a full recording: the transcripts of scenarios no longer run go (the replay tests
 * refuse them). `name` prefixes the removed file in what is printed; `who` is who no longer runs it.
 */
export function pruneTranscripts(
  outDir: string,
  applicable: readonly ProviderScenario[],
  who: string,
  name = '',
): void {
  const runs = new Set(applicable.map((s) => s.name));
  for (const file of readdirSync(outDir).filter((f) => f.endsWith('.ndjson'))) {
    const scenario = file.replace(/(\.\d+)?\.ndjson$/, '');
    if (!runs.has(scenario)) {
      rmSync(join(outDir, file));
      console.log(`removed ${name}${file}: ${who} does not run ${scenario}`);
    }
  }
}
