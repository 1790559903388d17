import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { ManualClock } from '../../src/domain/sources.js';
import type { Store } from '../../src/persistence/store.js';
import { acpAgents } from '../../src/providers/acp/acp-agents.js';
import { AcpProvider, type AcpProviderOptions } from '../../src/providers/acp/acp-provider.js';
import { ScriptedMessagesServer, type MessagesResponder } from '../../src/providers/model/scripted-messages-server.js';
import { ScriptedModelServer, type Responder } from '../../src/providers/model/scripted-model-server.js';
import { createHarness, type Harness } from './runtime.js';
import { TempFolders } from './temp.js';

/** The built-in agents, by name. */
export type BuiltInAgent = 'claude-agent-acp' | 'codex-acp';

/** The models the built-in agents are told to use (the scripted servers answer any). */
export const liveAcpModels = { claude: 'claude-sonnet-4-5', codex: 'baton-scripted' } as const;

/** Every process under this test process (children, and theirs): an agent's own children included. */
export function descendants(root = process.pid): { pid: number; args: string }[] {
  const parent = new Map<number, number>();
  const args = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      parent.set(Number(entry), Number(fields[1]));
      args.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim());
    } catch {
      // gone meanwhile
    }
  }
  const under = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === root) return true;
    return false;
  };
  return [...parent.keys()].filter(under).map((pid) => ({ pid, args: args.get(pid) ?? '' }));
}

/** The ACP agents (and the Claude binaries they run) still alive under this test process. */
export const acpAgentProcesses = (): string[] =>
  descendants()
    .filter((p) => /claude-agent-acp|codex-acp|claude-agent-sdk-linux-x64\/claude/.test(p.args))
    .map((p) => `${p.pid} ${p.args.slice(0, 160)}`);

export interface LiveAcpSetup {
  /** What the scripted Messages-API model (claude-agent-acp's) answers; default: its queue. */
  claude?: MessagesResponder;
  /** What the scripted Responses-API model (codex-acp's) answers; default: its queue. */
  codex?: Responder;
  provider?: Partial<Omit<AcpProviderOptions, 'agents' | 'dataDir'>>;
}

export interface LiveAcpRun {
  h: Harness;
  cwd: string;
  dataDir: string;
  messages: ScriptedMessagesServer;
  responses: ScriptedModelServer;
  provider: AcpProvider;
}

export interface LiveAcp {
  providers: AcpProvider[];
  setup(options?: LiveAcpSetup): Promise<LiveAcpRun>;
  /** Baton goes down (its agents with it, checked) and comes back on the same store. */
  restart(h: Harness): Promise<Harness>;
  workspace(): string;
}

/**
 * The live ACP harness for a vitest file: a runtime on real SQLite whose `acp` effects run
 * the real built-in agents against Baton's scripted models. After each test every agent is
 * SIGKILLed and none (nor any process of theirs) may be left.
 */
export function useLiveAcp(): LiveAcp {
  const temps = new TempFolders();
  const stores: Store[] = [];
  const providers: AcpProvider[] = [];
  const servers: { stop(): Promise<void> }[] = [];

  afterEach(async () => {
    try {
      await Promise.all(providers.splice(0).map((p) => p.stopAll('SIGKILL')));
      expect(acpAgentProcesses()).toEqual([]);
    } finally {
      stores.splice(0).forEach((s) => s.close());
      await Promise.all(servers.splice(0).map((m) => m.stop()));
      temps.removeAll();
    }
  });

  const workspace = (): string => realpathSync(temps.make('baton-acp-ws-'));

  const setup = async (options: LiveAcpSetup = {}): Promise<LiveAcpRun> => {
    const messages = await new ScriptedMessagesServer(options.claude).start();
    const responses = await new ScriptedModelServer(options.codex).start();
    servers.push(messages, responses);
    const dir = temps.make('baton-acp-live-');
    const dataDir = join(dir, 'data');
    const agents = acpAgents(
      {},
      {
        claude: { baseUrl: messages.baseUrl, model: liveAcpModels.claude },
        codex: { baseUrl: responses.baseUrl, model: liveAcpModels.codex },
      },
    );
    let provider: AcpProvider | null = null;
    const h = createHarness(
      {
        defaultProvider: 'acp',
        providers: (runtime) => {
          provider = new AcpProvider(runtime, { agents, dataDir, ...options.provider });
          providers.push(provider);
          return [provider.provider()];
        },
      },
      join(dir, 'baton.sqlite'),
      'p',
      new ManualClock(),
      (s) => stores.push(s),
    );
    return { h, cwd: workspace(), dataDir, messages, responses, provider: provider! };
  };

  const restart = async (h: Harness): Promise<Harness> => {
    await Promise.all(providers.map((p) => p.stopAll('SIGKILL')));
    expect(acpAgentProcesses()).toEqual([]);
    await h.runtime.settle();
    const h2 = h.restart();
    await h2.runtime.recoverAfterRestart();
    return h2;
  };

  return { providers, setup, restart, workspace };
}
