import { join } from 'node:path';
import type { ProviderScenario } from './scenario.js';
import type { ChannelSession, RunPlace, ScenarioChannel } from './channels.js';

/** Where a run keeps the agents' folders: transcripts name it `{{dataDir}}`. */
export const dataDirOf = (dir: string): string => join(dir, 'data');

/** What the kit needs of a provider that runs agent processes: stopping them all. */
interface StoppableProvider {
  stopAll(signal: NodeJS.Signals): Promise<void>;
}

/** The providers one scenario run made (a restart makes another), and their agents' stop. */
export interface RunProviders<P extends StoppableProvider> {
  readonly providers: P[];
  /** Stops every agent the run's providers started (before a restart, and at the end). */
  stop(): void;
  /** Stops every agent and resolves once their processes have exited. */
  gone(): Promise<void>;
  /** The newest provider, the one a scenario's kill of `threadId` is for. */
  latest(threadId: string): P;
}

/** Keeps a run's providers as the harness makes them; `name` says whose agent a failed kill wanted. */
export function runProviders<P extends StoppableProvider>(name: string): RunProviders<P> {
  const providers: P[] = [];
  const stopping: Promise<void>[] = [];
  const stop = () => providers.forEach((p) => stopping.push(p.stopAll('SIGKILL')));
  return {
    providers,
    stop,
    async gone() {
      stop();
      await Promise.all(stopping.splice(0));
    },
    latest(threadId) {
      const provider = providers.at(-1);
      if (!provider) throw new Error(`no ${name} provider runs for ${threadId}`);
      return provider;
    },
  };
}

/** A session whose agent processes can be waited out. */
export interface GoneSession extends ChannelSession {
  gone(): Promise<void>;
}

/** A channel whose latest run can be waited out (every agent process it started gone). */
export interface GoneChannel extends ScenarioChannel {
  gone(): Promise<void>;
}

/** A channel that keeps its latest run's session, for `gone()`. */
export function latestSession(
  kind: ScenarioChannel['kind'],
  open: (s: ProviderScenario, p: RunPlace) => GoneSession,
): GoneChannel {
  let current: GoneSession | null = null;
  return {
    kind,
    open(scenario, place) {
      current = open(scenario, place);
      return current;
    },
    gone: () => current?.gone() ?? Promise.resolve(),
  };
}

/** What the kit reads of a provider's thread: the pid of the agent process it runs, if any. */
interface AgentPids {
  adapter(threadId: string): { readonly pid: number | null };
}

/** A scenario's kill as a real signal: SIGKILL to the thread's agent process (`name` says whose). */
export const killAgent =
  (name: string) =>
  (provider: AgentPids, threadId: string): void => {
    const pid = provider.adapter(threadId).pid;
    if (!pid) throw new Error(`no ${name} agent runs for ${threadId}`);
    process.kill(pid, 'SIGKILL');
  };
