import { afterAll, afterEach } from 'vitest';
import { join } from 'node:path';
import { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { CodexProvider, type CodexProviderOptions } from '../../src/providers/codex/codex-provider.js';
import type { ScriptedModelServer } from '../../src/providers/model/scripted-model-server.js';
import type { CapabilitySource } from '../../src/actors/policy.js';
import type { Runtime } from '../../src/actors/runtime.js';
import type { Provider } from '../../src/providers/provider.js';
import { useScriptedModel } from './model.js';
import { useRuntime, type Harness } from './runtime.js';
import { TempFolders, tempDir } from './temp.js';

export interface LiveCodex {
  model: ScriptedModelServer;
  /** The Codex providers of the runtimes opened so far in this test (the first is the first opened). */
  providers: CodexProvider[];
  dataDir: string;
  /** A runtime on a real SQLite file whose provider effects run the real Codex. */
  open(): Harness;
  /** A fresh workspace folder, removed after the file. */
  workspace(): string;
}

export interface LiveCodexOptions {
  /** Codex's own stream idle timeout (the scripted endpoint's streams can be slow on purpose). */
  streamIdleTimeoutMs?: number;
  /** More provider options, read each time a runtime opens (a test may change them first). */
  provider?: () => Partial<CodexProviderOptions>;
  /** What the runtime's policy reads instead of the declared capabilities. */
  capabilities?: CapabilitySource;
  /** Other providers registered beside Codex. */
  providers?: (runtime: Runtime) => Provider[];
}

/**
 * The live Codex harness for a vitest file: the scripted model, a data dir with checkpoints,
 * and runtimes whose provider effects drive the real binary. Every Codex process is killed
 * after each test; the folders go after the file.
 */
export function useLiveCodex(options: LiveCodexOptions = {}): LiveCodex {
  const model = useScriptedModel();
  const data = tempDir('baton-live-codex-');
  const folders = new TempFolders();
  const providers: CodexProvider[] = [];
  const open = useRuntime({
    checkpoints: new CheckpointStore({ root: join(data.dir, 'checkpoints') }),
    ...(options.capabilities ? { capabilities: options.capabilities } : {}),
    ...(options.providers ? { providers: options.providers } : {}),
    handlers: (runtime) => {
      const endpoint = {
        baseUrl: model.baseUrl,
        model: 'gpt-5.1-codex',
        streamIdleTimeoutMs: options.streamIdleTimeoutMs ?? 5_000,
      };
      const provider = new CodexProvider(runtime, { endpoint, dataDir: data.dir, ...options.provider?.() });
      providers.push(provider);
      return provider.handlers();
    },
  });
  afterEach(() => providers.splice(0).forEach((p) => p.stopAll('SIGKILL')));
  afterAll(() => {
    data.cleanup();
    folders.removeAll();
  });
  return { model, providers, dataDir: data.dir, open, workspace: () => folders.make('baton-live-ws-') };
}
