import { describe, expect, it } from 'vitest';
import { BatonError } from '../../src/domain/errors.js';
import type { TurnSettings } from '../../src/providers/effect-payloads.js';
import {
  acpTurnTarget,
  applyAcpTurnSettings,
  modeUpdateOf,
  sessionOffer,
  sessionSettings,
} from '../../src/providers/acp/acp-turn-settings.js';

/** The `session/new` answers of the pinned agents, as measured (trimmed to what Baton reads). */
const claudeNew = {
  sessionId: 's1',
  models: { currentModelId: 'default', availableModels: [{ modelId: 'default' }, { modelId: 'opus' }] },
  modes: {
    currentModeId: 'default',
    availableModes: ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'].map((id) => ({ id })),
  },
};
const codexNew = {
  sessionId: 's2',
  modes: { currentModeId: 'read-only', availableModes: ['read-only', 'auto', 'full-access'].map((id) => ({ id })) },
};

const settings = (s: Partial<TurnSettings>): TurnSettings => ({
  model: null,
  runtimeMode: 'workspace_write',
  interactionMode: 'default',
  ...s,
});
const target = (answer: unknown, s: Partial<TurnSettings>) => acpTurnTarget('agent', sessionOffer(answer), settings(s));

describe('ACP turn settings', () => {
  it('maps runtime modes to claude-agent-acp and codex-acp modes, plan first', () => {
    expect(target(claudeNew, { runtimeMode: 'read_only' }).mode).toBe('default');
    expect(target(claudeNew, {}).mode).toBe('acceptEdits');
    expect(target(claudeNew, { runtimeMode: 'full_access' }).mode).toBe('bypassPermissions');
    expect(target(claudeNew, { runtimeMode: 'full_access', interactionMode: 'plan' }).mode).toBe('plan');
    expect(target(codexNew, { runtimeMode: 'read_only' }).mode).toBe('read-only');
    expect(target(codexNew, {}).mode).toBe('auto');
    expect(target(codexNew, { runtimeMode: 'full_access' }).mode).toBe('full-access');
  });

  it('the model: the set one, else the session initial one; none where the agent offers no set_model', () => {
    expect(target(claudeNew, { model: 'claude-haiku-4-5' }).model).toBe('claude-haiku-4-5');
    expect(target(claudeNew, {}).model).toBe('default');
    expect(target(codexNew, {}).model).toBeNull();
  });

  it('refuses, typed, what the agent cannot carry', () => {
    const unsupported = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return e instanceof BatonError ? e.code : 'untyped';
      }
      return 'accepted';
    };
    expect(unsupported(() => target(codexNew, { model: 'gpt-x' }))).toBe('unsupported');
    expect(unsupported(() => target(codexNew, { interactionMode: 'plan' }))).toBe('unsupported');
    // An agent with no modes runs the default runtime mode as it runs; any other is refused.
    expect(target({ sessionId: 's3' }, {})).toEqual({ mode: null, model: null });
    expect(unsupported(() => target({ sessionId: 's3' }, { runtimeMode: 'read_only' }))).toBe('unsupported');
    const noBypass = { modes: { currentModeId: 'default', availableModes: [{ id: 'default' }] } };
    expect(unsupported(() => target(noBypass, { runtimeMode: 'full_access' }))).toBe('unsupported');
  });

  it('sends only what changed, and again a mode the agent left itself', async () => {
    const sent: string[] = [];
    const port = {
      request: async (method: string, params: Record<string, unknown>) => {
        sent.push(`${method} ${String(params.modeId ?? params.modelId)}`);
        return {};
      },
    };
    const session = sessionSettings(claudeNew);
    await applyAcpTurnSettings('claude', 's1', session, settings({}), port);
    await applyAcpTurnSettings('claude', 's1', session, settings({}), port);
    session.offer.currentMode = modeUpdateOf({ sessionUpdate: 'current_mode_update', currentModeId: 'plan' })!;
    await applyAcpTurnSettings('claude', 's1', session, settings({ model: 'opus' }), port);
    expect(sent).toEqual(['session/set_mode acceptEdits', 'session/set_mode acceptEdits', 'session/set_model opus']);
  });

  it('a refused request is a typed provider error', async () => {
    const port = { request: () => Promise.reject({ code: -32603, message: 'Internal error' }) };
    await expect(
      applyAcpTurnSettings('claude', 's1', sessionSettings(claudeNew), settings({}), port),
    ).rejects.toMatchObject({ code: 'provider_error' });
  });

  it('reads no offer from an answer without one, and no mode from other updates', () => {
    expect(sessionOffer(null)).toEqual({ modes: [], currentMode: null, models: false, initialModel: null });
    expect(modeUpdateOf({ sessionUpdate: 'plan', entries: [] })).toBeNull();
  });
});
