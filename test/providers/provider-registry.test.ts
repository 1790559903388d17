import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EffectHandler } from '../../src/actors/effect-handler.js';
import type { Effect, ProviderEffectKind } from '../../src/domain/effects.js';
import { ProviderSessionId, ThreadId } from '../../src/domain/ids.js';
import { ProviderEvent } from '../../src/domain/provider-events.js';
import { SequentialIds } from '../../src/domain/sources.js';
import { CodexProvider, codexProvider } from '../../src/providers/codex/codex-provider.js';
import { codexCapabilities } from '../../src/providers/codex/codex-capabilities.js';
import type { NormalizerScope, Provider, ProviderNormalizer } from '../../src/providers/provider.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import { useLiveCodex } from '../support/live-codex.js';
import type { Harness } from '../support/runtime.js';

/**
 * The provider seam: each registered provider gets exactly its own effects (dispatched on
 * the effect's provider and kind), approval replies included; an effect for a provider
 * this Baton lacks is settled `unsupported` and a turn that could not start ends its run
 * failed with that error visible. Codex is the real one (the scripted model behind it).
 */

/** The scripted provider's frames are Baton's provider events already: its normalizer checks them and keeps its own thread's. */
const scriptedNormalizer = (scope: NormalizerScope): ProviderNormalizer => ({
  normalize: (frame) => {
    const event = ProviderEvent.safeParse(frame);
    return event.success && event.data.threadId === scope.threadId ? [event.data] : [];
  },
});

/** A scripted provider defined here: it records what it is handed and takes it as a provider would. */
function scriptedProvider(id: Provider['id'], seen: Effect[]): Provider {
  const take: EffectHandler = async (effect, worker) => {
    seen.push(effect);
    await worker.complete(effect);
  };
  const kinds: ProviderEffectKind[] = [
    'provider.turn.start',
    'provider.turn.steer',
    'provider.turn.interrupt',
    'provider.runtime-request.respond',
  ];
  return {
    id,
    capabilities: { ...codexCapabilities, version: `${id}-scripted/1` },
    handlers: Object.fromEntries(kinds.map((k) => [k, take])),
    appliedSettings: [],
    createNormalizer: scriptedNormalizer,
  };
}

const scriptedSeen: Effect[] = [];
const { model, dataDir, open, workspace } = useLiveCodex({
  providers: () => [scriptedProvider('claude', scriptedSeen)],
});

const providerEffects = (h: Harness, threadId: string) =>
  h.store.outbox.list({ threadId }).filter((e) => e.kind.startsWith('provider.'));

describe('the provider registry', () => {
  it('the runtime knows providers only through the seam: nothing in src/actors imports a provider but the registry and its interface', () => {
    const dir = join(import.meta.dirname, '../../src/actors');
    const imports = readdirSync(dir).flatMap((f) =>
      [...readFileSync(join(dir, f), 'utf8').matchAll(/from '(\.\.\/providers\/[^']+)'/g)].map((m) => `${f}: ${m[1]}`),
    );
    expect(imports.filter((i) => !/: \.\.\/providers\/(registry|provider)\.js$/.test(i))).toEqual([]);
  });

  it('refuses a second registration of an id, and names what each provider carries out', () => {
    const seen: Effect[] = [];
    const registry = new ProviderRegistry([scriptedProvider('claude', seen)]);
    expect(() => registry.register(scriptedProvider('claude', seen))).toThrow(/registered already/);
    expect(registry.ids()).toEqual(['claude']);
    expect(registry.handler('claude', 'provider.turn.start')).not.toBeNull();
    expect(registry.handler('claude', 'provider.thread.rollback')).toBeNull();
    expect(registry.handler('acp', 'provider.turn.start')).toBeNull();
    expect(() => registry.capabilities('acp')).toThrow(/no acp provider is available/);
  });

  it("hands out each provider's own normalizer, scoped to one app thread and session", () => {
    const registry = new ProviderRegistry([scriptedProvider('claude', [])]);
    const scope = {
      threadId: ThreadId.parse('thr_n1'),
      sessionId: ProviderSessionId.parse('psess_n1'),
      ids: new SequentialIds(),
    };
    const normalizer = registry.normalizer('claude', scope);
    const warning = { type: 'warning', threadId: 'thr_n1', runId: null, message: 'hello' };
    expect(normalizer.normalize(warning)).toEqual([warning]);
    expect(normalizer.normalize({ ...warning, threadId: 'thr_other' })).toEqual([]);
    expect(normalizer.normalize({ type: 'no.such.event' })).toEqual([]);
    expect(() => registry.normalizer('acp', scope)).toThrow(/no acp provider is available/);
    // Codex registers its own: it reads Codex's JSON-RPC frames.
    const codex = new ProviderRegistry([codexProvider({})]).normalizer('codex', scope);
    expect(
      codex.normalize({
        method: 'error',
        params: { threadId: 'n1', turnId: 't1', error: { message: 'boom' }, willRetry: true },
      }),
    ).toEqual([{ type: 'warning', threadId: 'thr_n1', runId: null, message: 'Codex: boom (retrying)' }]);
    expect(codex.normalize({ method: 'error', params: { threadId: 'n1' } })).toEqual([]);
  });

  it('Codex and a scripted provider each receive exactly their own effects, approval replies included; every outbox row names its provider', async () => {
    const h = open();
    scriptedSeen.length = 0;
    // The scripted provider's thread: a turn, an approval it asks for, the user's answer.
    const scripted = await h.thread({ provider: 'claude', cwd: workspace() });
    const scriptedRun = await h.send(scripted, 'hello');
    await h.worker.drain();
    const t = h.turn(scripted);
    await h.feed({
      type: 'turn.started',
      threadId: scripted,
      runId: scriptedRun,
      attemptId: t.attemptId,
      nodeId: t.rootNodeId,
      nativeTurnRef: 'turn-s1',
    });
    await h.feed({
      type: 'request.opened',
      threadId: scripted,
      runId: scriptedRun,
      requestId: 'req_s1',
      nodeId: 'node_req_s1',
      parentNodeId: t.rootNodeId,
      kind: 'command',
      prompt: 'Run ls?',
      details: {},
      providerSessionId: 'psess_s1',
    });
    expect((await h.command({ type: 'runtime-request.respond', requestId: 'req_s1', decision: 'accept' })).ok).toBe(
      true,
    );
    await h.worker.drain();
    expect(h.store.projections.get('requests', 'req_s1')).toMatchObject({ status: 'resolved' });

    // A Codex thread beside it: the real Codex asks for an approval and, answered, runs the command.
    const cwd = workspace();
    model.enqueue(
      { kind: 'exec', command: 'echo approved > proof.txt', escalated: true, callId: 'call_seam' },
      { kind: 'text', text: 'Done.' },
    );
    const codex = await h.thread({ cwd });
    const codexRun = await h.send(codex, 'write the proof');
    await h.until(() => h.store.projections.list('requests', codex).some((r) => r.status === 'pending'));
    const request = h.store.projections.list('requests', codex)[0]!;
    expect((await h.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'accept' })).ok).toBe(
      true,
    );
    await h.until(() => h.ended(codexRun));
    expect(h.run(codexRun).status).toBe('completed');
    expect(h.store.projections.get('requests', request.id)).toMatchObject({ status: 'resolved' });
    expect(readFileSync(join(cwd, 'proof.txt'), 'utf8')).toBe('approved\n');

    // The scripted provider got its own turn and answer, nothing of Codex's; Codex's were carried out by Codex.
    expect(scriptedSeen.map((e) => [e.kind, e.threadId, e.provider])).toEqual([
      ['provider.turn.start', scripted, 'claude'],
      ['provider.runtime-request.respond', scripted, 'claude'],
    ]);
    expect(providerEffects(h, scripted).map((e) => [e.kind, e.provider, e.status])).toEqual([
      ['provider.turn.start', 'claude', 'completed'],
      ['provider.runtime-request.respond', 'claude', 'completed'],
    ]);
    expect(providerEffects(h, codex).map((e) => [e.kind, e.provider, e.status])).toEqual([
      ['provider.turn.start', 'codex', 'completed'],
      ['provider.runtime-request.respond', 'codex', 'completed'],
    ]);
  }, 120_000);

  it('a thread setting its provider does not carry to the agent is refused unsupported, and nothing is stored', async () => {
    const h = open();
    const cwd = workspace();
    // The scripted provider declares no applied settings; Codex declares all three.
    for (const setting of [{ runtimeMode: 'read_only' }, { model: 'some-model' }, { interactionMode: 'plan' }]) {
      const refused = await h.command({ type: 'thread.create', provider: 'claude', cwd, ...setting });
      expect(refused).toMatchObject({ ok: false, error: { code: 'unsupported' } });
    }
    expect(h.store.projections.list('threads')).toHaveLength(0);
    const threadId = await h.thread({ provider: 'claude', cwd });
    expect(await h.command({ type: 'thread.settings.update', threadId, model: 'other' })).toMatchObject({
      ok: false,
      error: { code: 'unsupported', message: expect.stringContaining('does not apply model') },
    });
    expect(await h.command({ type: 'thread.message.send', threadId, text: 'hi', model: 'other' })).toMatchObject({
      ok: false,
      error: { code: 'unsupported' },
    });
    expect(h.store.projections.get('threads', threadId)).toMatchObject({ model: null });
    expect(h.store.projections.list('runs', threadId)).toHaveLength(0);
    // Codex carries them: the same fields are taken.
    const codex = await h.command({
      type: 'thread.create',
      provider: 'codex',
      cwd,
      runtimeMode: 'read_only',
      model: 'm',
    });
    expect(codex).toMatchObject({ ok: true });
  });

  it('an effect for a provider this Baton lacks is settled unsupported, and its run ends failed with the error visible', async () => {
    // A thread made while its provider was there; then Baton restarts with Codex alone.
    const h = open();
    const threadId = await h.thread({ provider: 'claude', cwd: workspace() });
    const lacking = h.restartWith({
      handlers: (runtime) =>
        new CodexProvider(runtime, {
          endpoint: { baseUrl: model.baseUrl, model: 'gpt-5.1-codex' },
          dataDir,
        }).handlers(),
    });
    const runId = await lacking.send(threadId, 'hello');
    await lacking.until(() => lacking.ended(runId));
    expect(lacking.effect('provider.turn.start', threadId)).toMatchObject({
      provider: 'claude',
      status: 'failed',
      lastError: expect.stringContaining('no claude provider is available'),
    });
    expect(lacking.run(runId)).toMatchObject({
      status: 'failed',
      error: { code: 'unsupported', message: expect.stringContaining('no claude provider is available') },
    });
    expect(model.requests).toHaveLength(0);
  });
});
