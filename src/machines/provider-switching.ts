import type { ContextTransferId, ProviderThreadId, RunId, ThreadId } from '../domain/ids.js';
import type { ProviderKind } from '../domain/statuses.js';
import type { DispatchCapabilities, ParkedProviderThread, ProviderSwitch } from './entity-messages.js';
import type { MachineOutput, MachineStep } from './outputs.js';

/**
 * How the thread supervisor moves a thread between providers (pure: ids come with the
 * events). A switch is recorded when it is asked for, with a pending ContextTransfer; it
 * takes effect when the next run starts: the outgoing provider thread is parked (it holds
 * every run so far, unless it was waiting to be reseeded), the target's parked thread is
 * taken up again and told only the runs it has not seen, else a new one is told them all.
 * A provider thread is a conversation held by one agent: for ACP, the provider and the
 * agent (another agent cannot take up its session), so a switch of ACP agent moves too.
 */

/** The agent a provider thread's conversation lives in: its provider, and its ACP agent (null for other providers). */
interface Host {
  provider: ProviderKind;
  acpAgent: string | null;
}

const sameHost = (a: Host, b: Host): boolean => a.provider === b.provider && a.acpAgent === b.acpAgent;

/** Where a parked provider thread lives (one parked before agent switches existed names no agent). */
const hostOf = (p: ParkedProviderThread): Host => ({ provider: p.provider, acpAgent: p.acpAgent ?? null });

/** A new provider thread of the app thread (a switch's target, a replacement, the first one). */
export function spawnProviderThread(
  threadId: ThreadId,
  id: ProviderThreadId,
  provider: ProviderKind,
  forkedFrom: ProviderThreadId | null = null,
): MachineOutput {
  return {
    type: 'spawn',
    entity: { kind: 'provider_thread', id, input: { providerThreadId: id, threadId, provider, forkedFrom } },
  };
}

/** What the supervisor keeps for switches (optional: a supervisor stored before them has none). */
export interface SwitchState {
  threadId: ThreadId;
  provider: ProviderKind;
  providerThreadId: ProviderThreadId;
  reseedNext: boolean;
  countedRunIds: RunId[];
  /** The flags of `providerThreadId`'s provider while a switch waits (`capabilities` are the next run's already). */
  providerThreadCapabilities?: DispatchCapabilities | null;
  /** The provider of `providerThreadId` (the settings' `provider` may already name the next run's). */
  providerThreadProvider?: ProviderKind;
  /** The settings' ACP agent: the next run's. */
  acpAgent?: string | null;
  /** The ACP agent of `providerThreadId` while a switch waits (the settings' `acpAgent` may already name the next run's). */
  providerThreadAgent?: string | null;
  /** The other providers' threads, to return to. */
  parkedProviderThreads?: ParkedProviderThread[];
  /** The id a new provider thread would take. */
  nextProviderThreadId?: ProviderThreadId | null;
  /** The switch asked for a clean context: the target provider's earlier thread is not taken up. */
  cleanSwitch?: boolean;
  /** The last switch's transfer, until the next run starts and takes it or finds nothing owed. */
  pendingTransferId?: ContextTransferId | null;
  /** Runs whose turn carried a seed into a provider thread, and the ordinal each seed told from. */
  seededRuns?: { providerThreadId: ProviderThreadId; ordinal: number; since: number }[];
  /** The current provider thread lacks the runs after this one (a native rollback dropped the turn that told it them). */
  currentToldThrough?: number | null;
}

type SwitchFields = Omit<SwitchState, 'threadId' | 'provider' | 'acpAgent' | 'reseedNext' | 'countedRunIds'>;

/** Where the next run (ordinal `ordinal`) runs, and what it is owed. */
export interface ProviderMove extends MachineStep<SwitchFields> {
  providerThreadId: ProviderThreadId;
  /** The runs it lacks are handed to it: those after `sinceOrdinal`. */
  handoff: { sinceOrdinal: number } | null;
  /** The transfer the handoff materializes. */
  transferId: ContextTransferId | null;
  /** A provider thread to create (the target provider has none to return to). */
  create: ProviderThreadId | null;
}

/** The provider thread the next run goes to: see the header. */
export function providerMove(c: SwitchState, ordinal: number): ProviderMove {
  const current: Host = {
    provider: c.providerThreadProvider ?? c.provider,
    acpAgent: c.providerThreadAgent !== undefined ? c.providerThreadAgent : (c.acpAgent ?? null),
  };
  const pending = c.pendingTransferId ?? null;
  const move = target(c, current, ordinal);
  const outputs: MachineOutput[] = [];
  // The switch's transfer goes with the run that carries its handoff; with nothing owed, it is moot.
  if (pending && !move.handoff)
    outputs.push({
      type: 'send',
      to: { kind: 'context_transfer', id: pending },
      event: { type: 'SUPERSEDE', reason: 'the provider thread the run went to holds every earlier run' },
    });
  if (move.create) outputs.push(spawnProviderThread(c.threadId, move.create, c.provider));
  return {
    ...move,
    transferId: move.handoff ? pending : null,
    assign: { ...move.assign, ...(pending ? { pendingTransferId: null } : {}) },
    outputs,
  };
}

function target(
  c: SwitchState,
  current: Host,
  ordinal: number,
): Pick<ProviderMove, 'providerThreadId' | 'handoff' | 'create' | 'assign'> {
  const lacking = c.currentToldThrough ?? null;
  const next: Host = { provider: c.provider, acpAgent: c.acpAgent ?? null };
  if (sameHost(current, next) || !c.nextProviderThreadId)
    return {
      providerThreadId: c.providerThreadId,
      handoff: lacking !== null && lacking < ordinal - 1 && !c.reseedNext ? { sinceOrdinal: lacking } : null,
      create: null,
      assign: lacking !== null ? { currentToldThrough: null } : {},
    };
  const parked = c.parkedProviderThreads ?? [];
  const earlier = c.cleanSwitch ? undefined : parked.find((p) => sameHost(hostOf(p), next));
  const to = earlier ?? { providerThreadId: c.nextProviderThreadId, toldThrough: 0 };
  const outgoing: ParkedProviderThread = {
    provider: current.provider,
    ...(current.acpAgent !== null ? { acpAgent: current.acpAgent } : {}),
    providerThreadId: c.providerThreadId,
    toldThrough: c.reseedNext ? 0 : (lacking ?? ordinal - 1),
  };
  return {
    providerThreadId: to.providerThreadId,
    handoff: to.toldThrough < ordinal - 1 ? { sinceOrdinal: to.toldThrough } : null,
    create: earlier ? null : to.providerThreadId,
    assign: {
      providerThreadId: to.providerThreadId,
      providerThreadProvider: c.provider,
      providerThreadAgent: next.acpAgent,
      parkedProviderThreads: [
        ...parked.filter((p) => !sameHost(hostOf(p), next) && !sameHost(hostOf(p), current)),
        outgoing,
      ],
      nextProviderThreadId: null,
      cleanSwitch: false,
      currentToldThrough: null,
      providerThreadCapabilities: null,
    },
  };
}

/** A switch asked for: the new provider's flags, the ids it may need, and its pending transfer (a newer one supersedes). */
export function recordSwitch(
  c: SwitchState & { capabilities?: DispatchCapabilities },
  sw: ProviderSwitch,
  to: ProviderKind,
): { assign: Partial<SwitchFields> & { capabilities: ProviderSwitch['capabilities'] }; outputs: MachineOutput[] } {
  const from = c.providerThreadProvider ?? c.provider;
  const fromAgent = c.providerThreadAgent !== undefined ? c.providerThreadAgent : (c.acpAgent ?? null);
  const last = c.countedRunIds.at(-1) ?? null;
  const outputs: MachineOutput[] = [];
  if (c.pendingTransferId)
    outputs.push({
      type: 'send',
      to: { kind: 'context_transfer', id: c.pendingTransferId },
      event: { type: 'SUPERSEDE', reason: 'a newer provider switch' },
    });
  outputs.push({
    type: 'spawn',
    entity: {
      kind: 'context_transfer',
      id: sw.transferId,
      input: {
        transferId: sw.transferId,
        threadId: c.threadId,
        kind: 'provider_handoff',
        sourceThreadId: c.threadId,
        sourceRunId: last,
        sourceRunOrdinal: last ? c.countedRunIds.length : null,
        fromProvider: from,
        toProvider: to,
      },
    },
  });
  return {
    assign: {
      capabilities: sw.capabilities,
      providerThreadProvider: from,
      providerThreadAgent: fromAgent,
      providerThreadCapabilities: c.providerThreadCapabilities ?? c.capabilities ?? null,
      nextProviderThreadId: sw.newProviderThreadId,
      cleanSwitch: sw.clean,
      pendingTransferId: sw.transferId,
    },
    outputs,
  };
}

/** A rollback to `ordinal`: a parked provider thread that holds a later run is not returned to (a switch there starts afresh). */
export function parkedAfterRollback(c: SwitchState, ordinal: number): Partial<SwitchFields> {
  const parked = c.parkedProviderThreads ?? [];
  return parked.some((p) => p.toldThrough > ordinal)
    ? { parkedProviderThreads: parked.filter((p) => p.toldThrough <= ordinal) }
    : {};
}

/** The seeds the thread's runs carried, with the one the run starting now carries (a handoff or a reseed). */
export function withSeededRun(
  c: SwitchState,
  move: Pick<ProviderMove, 'providerThreadId' | 'handoff'>,
  ordinal: number,
): NonNullable<SwitchState['seededRuns']> {
  const recovery = c.reseedNext && move.providerThreadId === c.providerThreadId;
  const seeded = move.handoff ?? (recovery ? { sinceOrdinal: 0 } : null);
  return (c.seededRuns ?? []).concat(
    seeded ? [{ providerThreadId: move.providerThreadId, ordinal, since: seeded.sinceOrdinal }] : [],
  );
}

/**
 * A native rollback to `ordinal` drops the later turns, and with them any seed they carried:
 * the runs such a seed told (kept ones, before `ordinal`) are owed again to the current
 * provider thread (`currentToldThrough`), told by the next run's seed.
 */
export function afterNativeRollback(c: SwitchState, ordinal: number): Partial<SwitchFields> {
  const seeds = c.seededRuns ?? [];
  const lost = seeds.filter(
    (s) => s.providerThreadId === c.providerThreadId && s.ordinal > ordinal && s.since < ordinal,
  );
  const since = Math.min(c.currentToldThrough ?? ordinal, ...lost.map((s) => s.since));
  return {
    seededRuns: seeds.filter((s) => s.ordinal <= ordinal),
    currentToldThrough: since < ordinal ? since : null,
  };
}
