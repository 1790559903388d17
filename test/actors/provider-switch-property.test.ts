import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useRuntime, type Harness } from '../support/runtime.js';
import { replyTo, ScriptedAgent, scriptedHandlers, scriptedProvider } from '../support/scripted-agents.js';

/**
 * Issue 15's property: over random runs, provider switches (by message and by settings;
 * between providers, and between two ACP agents, whose sessions are each their own) and rollbacks, every provider thread the supervisor keeps (the current one, the parked
 * ones) holds each run it has been told exactly once, natively or through a seed, and
 * nothing rolled back; the current one holds every kept run once it answers. What a thread
 * holds is read from the scripted agents' own conversations (the texts they received), not
 * from Baton's bookkeeping. The real runtime, store, machines, effect worker, reseed and ThreadAdapters;
 * Codex rolls back natively, Claude cannot (its thread is replaced and reseeded), the ACP
 * agent rolls back natively.
 */

/** Where a conversation lives: a provider, and on ACP one of its two agents (each with sessions of its own). */
const hosts = ['codex', 'claude', 'acp-one', 'acp-two'] as const;
type P = (typeof hosts)[number];
const providerKinds = ['codex', 'claude', 'acp'] as const;
type Kind = (typeof providerKinds)[number];
const providerOf = (host: P): Kind => (host.startsWith('acp-') ? 'acp' : (host as Kind));
const agentOf = (host: P): string | null => (host.startsWith('acp-') ? host.slice('acp-'.length) : null);
const hostOf = (provider: Kind, acpAgent: string | null | undefined): P =>
  (provider === 'acp' ? `acp-${acpAgent}` : provider) as P;

type Step =
  { kind: 'send'; to: P; via: 'message' | 'settings' } | { kind: 'switch'; to: P } | { kind: 'rollback'; pick: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('send' as const),
      to: fc.constantFrom(...hosts),
      via: fc.constantFrom('message' as const, 'settings' as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('switch' as const), to: fc.constantFrom(...hosts) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('rollback' as const), pick: fc.nat(20) }) },
);

let agents = newAgents();
function newAgents(): Record<P, ScriptedAgent> {
  return {
    codex: new ScriptedAgent('codex', true),
    claude: new ScriptedAgent('claude', false),
    'acp-one': new ScriptedAgent('acp', true, 'one'),
    'acp-two': new ScriptedAgent('acp', true, 'two'),
  };
}

const open = useRuntime({
  handlers: (runtime) => scriptedHandlers(agents.codex, runtime),
  providers: (runtime) => [
    scriptedProvider(agents.claude, runtime),
    scriptedProvider(agents['acp-one'], runtime, { one: agents['acp-one'], two: agents['acp-two'] }),
  ],
});

/** What the test reads of the supervisor's persisted context (an edge: parsed). */
const Supervisor = z.object({
  context: z.object({
    provider: z.enum(providerKinds),
    acpAgent: z.string().nullable().optional(),
    providerThreadId: z.string(),
    providerThreadProvider: z.enum(providerKinds).optional(),
    providerThreadAgent: z.string().nullable().optional(),
    parkedProviderThreads: z
      .array(
        z.object({
          provider: z.enum(providerKinds),
          acpAgent: z.string().nullable().optional(),
          providerThreadId: z.string(),
          toldThrough: z.number(),
        }),
      )
      .optional(),
    reseedNext: z.boolean(),
  }),
});

const Seeded = z.object({
  attemptId: z.string(),
  providerThreadId: z.string().nullable(),
  coveredRunOrdinals: z.array(z.number()),
  text: z.string(),
});

/** The fields a switch to `to` carries (the ACP provider needs its agent). */
const switchFields = (to: P): Record<string, unknown> => ({
  provider: providerOf(to),
  ...(agentOf(to) ? { acpAgent: agentOf(to) } : {}),
});

interface World {
  h: Harness;
  threadId: string;
  /** The provider the thread's settings name (the next run's). */
  settings: P;
  /** Each run's user text, and the run each text names. */
  textOf: Map<string, string>;
  runOf: Map<string, string>;
  trace: string[];
}

async function play(w: World, s: Step, n: number): Promise<void> {
  const { h, threadId } = w;
  if (s.kind === 'rollback') {
    const kept = h.store.projections
      .list('runs', threadId)
      .filter((r) => r.ordinal !== null && r.status !== 'rolled_back');
    const runOrdinal = s.pick % (kept.length + 1);
    w.trace.push(`rollback to ${runOrdinal}`);
    const ack = await h.command({ type: 'rollback.toRun', threadId, runOrdinal });
    expect(ack, w.trace.join(' | ')).toMatchObject({ ok: true });
    await h.worker.drain();
    return;
  }
  const switching = s.to !== w.settings;
  if (s.kind === 'switch' || (switching && s.via === 'settings')) {
    if (switching) {
      w.trace.push(`settings -> ${s.to}`);
      const ack = await h.command({ type: 'thread.settings.update', threadId, ...switchFields(s.to) });
      expect(ack, w.trace.join(' | ')).toMatchObject({ ok: true });
      w.settings = s.to;
    }
    if (s.kind === 'switch') return;
  }
  const text = `question q${n}`;
  const viaMessage = s.to !== w.settings;
  const runId = await h.send(threadId, text, viaMessage ? switchFields(s.to) : {});
  w.settings = s.to;
  w.textOf.set(runId, text);
  w.runOf.set(text, runId);
  w.trace.push(`send q${n} on ${s.to}${viaMessage ? ' (switching)' : ''}`);
  await h.until(() => h.ended(runId));
  await h.worker.drain();
  expect(h.run(runId).status, w.trace.join(' | ')).toBe('completed');
}

/** The runs a provider thread holds, by run id, each time it holds one: its native turns and the runs its seeds told. */
function held(w: World, provider: P, providerThreadId: string): string[] {
  const { h, threadId } = w;
  const runs = new Map<string, { ordinal: number | null }>(
    h.store.projections.list('runs', threadId).map((r) => [r.id, r]),
  );
  const seeds = new Map(
    h.store.events
      .readThreadAfter(threadId, 0)
      .filter((e) => e.type === 'context.seeded')
      .map((e) => Seeded.parse(e.payload))
      .map((s) => [s.attemptId, s]),
  );
  const conversation = agents[provider].conversationOf(h.runtime.providerHost(providerOf(provider)), providerThreadId);
  const holds: string[] = [];
  for (const turn of conversation?.turns ?? []) {
    const where = `${provider} thread ${providerThreadId}, turn of ${turn.runId} | ${w.trace.join(' | ')}`;
    const own = w.textOf.get(turn.runId)!;
    const seed = seeds.get(turn.attemptId);
    // The agent received the recorded seed (if any), then the user's message, and nothing else.
    expect(turn.text, where).toBe(seed ? `${seed.text}\n\n${own}` : own);
    holds.push(turn.runId);
    if (!seed) continue;
    expect(seed.providerThreadId, where).toBe(providerThreadId);
    const told: number[] = [];
    for (const line of seed.text.split('\n').slice(1)) {
      const m = /^\[run (\d+)\] (User|Assistant): (.*)$/.exec(line);
      expect(m, `${where}: seed line ${line}`).not.toBeNull();
      const [, ordinal, who, said] = m!;
      const runId = who === 'User' ? w.runOf.get(said!) : said!.replace(/^answer to /, '');
      expect(runId && runs.get(runId)?.ordinal, `${where}: seed line ${line}`).toBe(Number(ordinal));
      if (who === 'Assistant') {
        expect(said, where).toBe(replyTo(runId!));
        continue;
      }
      expect(seed.text, `${where}: the seed tells ${runId}'s answer`).toContain(
        `[run ${ordinal}] Assistant: ${replyTo(runId!)}`,
      );
      told.push(Number(ordinal));
      holds.push(runId!);
    }
    expect(told, `${where}: the seed tells the runs it says it covers`).toEqual(seed.coveredRunOrdinals);
  }
  // In run order: a run held twice shows twice.
  return holds.sort((a, b) => runs.get(a)!.ordinal! - runs.get(b)!.ordinal! || a.localeCompare(b));
}

/**
 * Every parked provider thread holds exactly the kept runs it was told, each once. The
 * current one holds every kept run once when it has just answered (`answered`); between
 * runs it may still lack the latest ones (a replacement waiting for its reseed, a thread
 * whose rollback dropped the turn that told it some), which its next run must tell it: it
 * holds the first kept runs, each once, and nothing rolled back.
 */
function check(w: World, answered: boolean): void {
  const { h, threadId } = w;
  const sup = Supervisor.parse(h.store.entities.get(threadId)!.snapshot).context;
  const kept = h.store.projections
    .list('runs', threadId)
    .filter((r) => r.ordinal !== null && r.status !== 'rolled_back')
    .map((r) => r.id);
  const ordinals = kept.map((id) => h.run(id).ordinal);
  expect(ordinals, 'kept runs are numbered densely').toEqual(kept.map((_, i) => i + 1));
  const current = hostOf(
    sup.providerThreadProvider ?? sup.provider,
    sup.providerThreadAgent !== undefined ? sup.providerThreadAgent : sup.acpAgent,
  );
  const threads = [
    { provider: current, providerThreadId: sup.providerThreadId, toldThrough: null as number | null, role: 'current' },
    ...(sup.parkedProviderThreads ?? []).map((p) => ({
      provider: hostOf(p.provider, p.acpAgent),
      providerThreadId: p.providerThreadId,
      toldThrough: p.toldThrough,
      role: 'parked',
    })),
  ];
  for (const t of threads) {
    const holds = held(w, t.provider, t.providerThreadId);
    const told = t.toldThrough ?? (answered ? kept.length : holds.length);
    expect(
      holds,
      `${t.role} ${t.provider} thread ${t.providerThreadId} (told through ${told}) | ${w.trace.join(' | ')}`,
    ).toEqual(kept.slice(0, told));
  }
  for (const agent of Object.values(agents)) expect(agent.problems, agent.id).toEqual([]);
  // Every rollback left the provider's conversation as Baton expected it.
  const warnings = h.store.events
    .readThreadAfter(threadId, 0)
    .filter(
      (e) =>
        e.type === 'runtime.warning' && String((e.payload as { message: unknown }).message).includes('does not match'),
    );
  expect(
    warnings.map((e) => e.payload),
    w.trace.join(' | '),
  ).toEqual([]);
}

describe('provider switches, property', () => {
  it('every provider thread holds every kept run it was told exactly once, natively or through a seed; the current one holds them all', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...hosts),
        fc.array(step, { minLength: 1, maxLength: 10 }),
        fc.constantFrom(...hosts),
        async (first, steps, last) => {
          agents = newAgents();
          const h = open();
          const threadId = await h.thread(switchFields(first));
          const w: World = {
            h,
            threadId,
            settings: first,
            textOf: new Map(),
            runOf: new Map(),
            trace: [`on ${first}`],
          };
          for (const [n, s] of steps.entries()) {
            await play(w, s, n);
            check(w, s.kind === 'send');
          }
          // A last run, so that whatever the steps left owed is told (and checked) by then.
          await play(w, { kind: 'send', to: last, via: 'message' }, steps.length);
          check(w, true);
        },
      ),
      { numRuns: 100 },
    );
  }, 120_000);
});
