import type { PermissionMode, Query } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { BatonError } from '../../src/domain/errors.js';
import { applyTurnSettings, claudeTurnPolicy } from '../../src/providers/claude/claude-turn-settings.js';

/**
 * The mapping from Baton's thread settings to the Claude agent's permission mode, rules and
 * model, and how a turn applies it to a live query (a stand-in here; the real agent is in
 * claude-settings-live.test.ts): what it sends, when, and a refusal or silence as a typed error.
 */
const MODEL = 'claude-sonnet-4-5';
const WRITERS = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'];

/** A query that records the control requests it gets; `answer` decides each permission-mode answer. */
function recordingQuery(answer: (mode: PermissionMode) => Promise<{ mode?: PermissionMode } | undefined>) {
  const calls: string[] = [];
  const stand: Pick<Query, 'setPermissionMode' | 'setModel' | 'applyFlagSettings'> = {
    setPermissionMode: (mode) => (calls.push(`mode ${mode}`), answer(mode)),
    setModel: async (model) => void calls.push(`model ${model}`),
    applyFlagSettings: async (settings) => void calls.push(`rules ${JSON.stringify(settings)}`),
  };
  return { query: stand as Query, calls };
}

const payload = (extra: Record<string, unknown> = {}) => ({
  runtimeMode: 'workspace_write',
  interactionMode: 'default',
  model: null,
  ...extra,
});

describe('Claude turn settings', () => {
  it('maps each runtime mode to a permission mode and rules; plan mode wins the mode; a null model is the endpoint model', () => {
    const at = (runtimeMode: 'read_only' | 'workspace_write' | 'full_access') =>
      claudeTurnPolicy({ model: null, runtimeMode, interactionMode: 'default' }, MODEL);
    expect(at('read_only')).toEqual({ permissionMode: 'default', rules: { deny: WRITERS, ask: [] }, model: MODEL });
    expect(at('workspace_write')).toEqual({
      permissionMode: 'acceptEdits',
      rules: { deny: [], ask: ['Bash'] },
      model: MODEL,
    });
    expect(at('full_access')).toEqual({
      permissionMode: 'bypassPermissions',
      rules: { deny: [], ask: [] },
      model: MODEL,
    });
    expect(
      claudeTurnPolicy({ model: 'claude-haiku-4-5', runtimeMode: 'read_only', interactionMode: 'plan' }, MODEL),
    ).toEqual({ permissionMode: 'plan', rules: { deny: WRITERS, ask: [] }, model: 'claude-haiku-4-5' });
  });

  it('sends the mode every turn, the rules and the model only when they change for the query', async () => {
    const { query, calls } = recordingQuery(async (mode) => ({ mode }));
    await applyTurnSettings(query, payload(), MODEL);
    expect(calls).toEqual([`rules {"permissions":{"deny":[],"ask":["Bash"]}}`, 'mode acceptEdits']);
    calls.length = 0;
    await applyTurnSettings(query, payload(), MODEL);
    expect(calls).toEqual(['mode acceptEdits']);
    calls.length = 0;
    await applyTurnSettings(query, payload({ runtimeMode: 'read_only', model: 'claude-haiku-4-5' }), MODEL);
    expect(calls).toEqual([
      `rules {"permissions":{"deny":${JSON.stringify(WRITERS)},"ask":[]}}`,
      'mode default',
      'model claude-haiku-4-5',
    ]);
    calls.length = 0;
    // Back to the endpoint's model: said explicitly (the agent's own default is not the endpoint's).
    await applyTurnSettings(query, payload({ runtimeMode: 'read_only' }), MODEL);
    expect(calls).toEqual(['mode default', `model ${MODEL}`]);
    // A new query (a new agent process) starts from the endpoint model and no rules.
    const fresh = recordingQuery(async (mode) => ({ mode }));
    await applyTurnSettings(fresh.query, payload({ runtimeMode: 'full_access' }), MODEL);
    expect(fresh.calls).toEqual(['mode bypassPermissions']);
  });

  it('a turn start without its settings, a refused mode, another mode in effect or silence is a typed error', async () => {
    const fine = recordingQuery(async (mode) => ({ mode }));
    await expect(applyTurnSettings(fine.query, { runtimeMode: 'sideways' }, MODEL)).rejects.toMatchObject({
      code: 'invalid_payload',
    });
    const refused = recordingQuery(() => Promise.reject(new Error('Cannot set permission mode')));
    await expect(applyTurnSettings(refused.query, payload(), MODEL)).rejects.toMatchObject({
      code: 'provider_error',
      message: expect.stringContaining('Cannot set permission mode'),
    });
    const other = recordingQuery(async () => ({ mode: 'default' }));
    await expect(applyTurnSettings(other.query, payload({ runtimeMode: 'full_access' }), MODEL)).rejects.toMatchObject({
      code: 'provider_error',
      message: expect.stringContaining('permission mode default'),
    });
    const silent = recordingQuery(() => new Promise(() => undefined));
    const error = await applyTurnSettings(silent.query, payload(), MODEL, 50).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatonError);
    expect(error).toMatchObject({ code: 'timeout' });
  });
});
