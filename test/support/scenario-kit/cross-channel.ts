import type { CapabilitySource } from '../../../src/actors/policy.js';
import type { ProviderKind } from '../../../src/domain/statuses.js';
import type { GoneSession } from './agent-providers.js';
import type { ChannelSession, RunPlace, ScenarioChannel } from './channels.js';
import { providersOf, type CrossProvider, type CrossScenario, type ModelSide } from './cross-scenario.js';
import type { ProviderScenario } from './scenario.js';

/**
 * The multi-provider channel: one Baton with several providers, each wired in by its own
 * scenario channel (live, recording or replay) exactly as its single-provider scenarios run
 * it, composed. Each provider's channel gets the scenario's model script for that provider
 * and keeps its own agents, transcripts and checks; the composed session registers them all.
 */

/** One provider of the multi-provider channel: its own channel and, live, what its model was asked. */
export interface CrossPart {
  channel: ScenarioChannel;
  model?: ModelSide;
}

export type CrossParts = Partial<Record<CrossProvider, CrossPart>>;

export interface CrossSession extends GoneSession {
  model(provider: CrossProvider): ModelSide | null;
}

export interface CrossChannel {
  kind: ScenarioChannel['kind'];
  open(scenario: CrossScenario, place: RunPlace): CrossSession;
  /** Every agent process of the latest run gone. */
  gone(): Promise<void>;
}

/** The provider a cross provider is registered as (the ACP agents are the `acp` provider's). */
export const providerKindOf = (p: CrossProvider): ProviderKind => (p === 'codex' || p === 'claude' ? p : 'acp');

/** One provider's share of a cross scenario, as its single-provider channel takes it. */
const partScenario = (scenario: CrossScenario, p: CrossProvider): ProviderScenario => ({
  name: scenario.name,
  needs: [],
  model: scenario.models[p] ?? [],
  drive: () => Promise.reject(new Error(`${scenario.name}: a provider's part is never driven on its own`)),
});

const hasGone = (s: ChannelSession): s is GoneSession => typeof (s as Partial<GoneSession>).gone === 'function';

/**
 * A channel whose sessions register every provider a scenario names (`partsFor` gives each
 * provider's channel for the scenario: a recording writes each scenario's transcripts apart).
 */
export function crossChannel(
  kind: ScenarioChannel['kind'],
  partsFor: (scenario: CrossScenario) => CrossParts,
): CrossChannel {
  let current: CrossSession | null = null;
  return {
    kind,
    open(scenario, place) {
      const parts = partsFor(scenario);
      const opened = providersOf(scenario).map((provider) => {
        const part = parts[provider];
        if (!part) throw new Error(`the ${kind} cross channel has no ${provider} for ${scenario.name}`);
        if (part.channel.kind !== kind) throw new Error(`${provider}'s channel is ${part.channel.kind}, not ${kind}`);
        return { provider, part, session: part.channel.open(partScenario(scenario, provider), place) };
      });
      current = composeSessions(scenario.name, opened);
      return current;
    },
    gone: () => current?.gone() ?? Promise.resolve(),
  };
}

interface OpenedPart {
  provider: CrossProvider;
  part: CrossPart;
  session: ChannelSession;
}

/** One Baton with every opened part's provider registered, and their hooks run together. */
function composeSessions(name: string, opened: readonly OpenedPart[]): CrossSession {
  const first = opened[0];
  if (!first) throw new Error(`${name} names no provider`);
  const codex = opened.filter((o) => o.session.harness.handlers);
  if (codex.length > 1) throw new Error(`${name}: two parts carry the Codex handlers`);
  // Baton registers one provider per id: one ACP agent a scenario.
  if (opened.filter((o) => providerKindOf(o.provider) === 'acp').length > 1)
    throw new Error(`${name}: a cross scenario runs one ACP agent at most`);
  // Each thread is decided by its own provider's (and agent's) declaration, as its channel says it.
  const capabilities: CapabilitySource = (provider, agent) => {
    const part = opened.find(
      (o) => providerKindOf(o.provider) === provider && (provider !== 'acp' || !agent || o.provider === agent),
    );
    if (!part) throw new Error(`${name} runs no ${provider}${agent ? ` ${agent}` : ''} provider`);
    return part.session.capabilities;
  };
  const unsupported = (what: string) => () => {
    throw new Error(`${name}: ${what} is not a cross-scenario hook (say which provider)`);
  };
  const finishers = opened.flatMap((o) => (o.session.finish ? [o.session.finish] : []));
  return {
    live: first.session.live,
    // What `declares` reads: the default (first) provider's declaration.
    capabilities: first.session.capabilities,
    harness: {
      capabilities,
      ...(first.session.harness.checkpoints ? { checkpoints: first.session.harness.checkpoints } : {}),
      ...(codex[0]?.session.harness.handlers ? { handlers: codex[0].session.harness.handlers } : {}),
      providers: (runtime) => opened.flatMap((o) => o.session.harness.providers?.(runtime) ?? []),
      defaultProvider: providerKindOf(first.provider),
    },
    modelAsked: unsupported('modelAsked'),
    kill: unsupported('kill'),
    stop: () => opened.forEach((o) => o.session.stop()),
    // Every part's own check (a replay consumed every frame; a recording is written).
    finish: () => finishers.forEach((finish) => finish()),
    describe: () =>
      opened
        .flatMap((o) => {
          const where = o.session.describe?.();
          return where ? [`${o.provider}: ${where}`] : [];
        })
        .join('\n'),
    gone: async () => {
      await Promise.all(opened.map((o) => (hasGone(o.session) ? o.session.gone() : o.session.stop())));
    },
    model: (provider) =>
      first.session.live ? (opened.find((o) => o.provider === provider)?.part.model ?? null) : null,
  };
}
