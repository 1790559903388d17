import { z } from 'zod';
import { BatonError } from '../../domain/errors.js';
import type { InteractionMode, RuntimeMode } from '../../domain/statuses.js';
import type { TurnSettings } from '../effect-payloads.js';

/**
 * Baton's thread settings as an ACP agent's session mode and model. Measured on this machine:
 * - claude-agent-acp 0.23.1 offers modes default, acceptEdits, plan, dontAsk and (as root with
 *   IS_SANDBOX=1) bypassPermissions, and `models` with `session/set_model`. A set model id is
 *   sent as is: the next Messages request names it (any id, listed or not). `session/set_mode`
 *   answers `{}` and a `config_option_update`, no `current_mode_update`; the agent sends one
 *   itself when it enters plan mode or leaves it through an approved ExitPlanMode.
 * - codex-acp 0.16.0 offers modes read-only, auto and full-access (its approval presets: the
 *   sandbox and approval policy of Baton's Codex provider for read_only, workspace_write and
 *   full_access), no plan mode, no `models` and no `session/set_model` ("Method not found").
 * An agent's mode is chosen by its id, from the first candidate it offers.
 */

/** The mode ids that carry each runtime mode, in order of preference. */
const RUNTIME_MODES: Record<RuntimeMode, readonly string[]> = {
  // Edits ask; nothing is written without Baton's approval.
  read_only: ['read-only', 'default'],
  // Edits in the workspace go ahead; what leaves it asks.
  workspace_write: ['auto', 'acceptEdits'],
  // Nothing asks.
  full_access: ['full-access', 'bypassPermissions'],
};

/** The mode ids of plan interaction (which takes precedence over the runtime mode, as in the Claude provider). */
const PLAN_MODES: readonly string[] = ['plan'];

/** What a session's agent offers for settings, read from its `session/new`, `resume`, `load` or `fork` answer. */
export interface AcpSessionOffer {
  /** The mode ids it offers (empty: no modes). */
  modes: string[];
  /** The mode it runs in now (tracked from `current_mode_update` too). */
  currentMode: string | null;
  /** Whether it takes `session/set_model` (it answered with `models`). */
  models: boolean;
  /** The model it started with (Baton's `model: null` means this one). */
  initialModel: string | null;
}

/** The part of a session answer Baton reads for settings (the edge: the rest passes). */
const SessionAnswer = z.looseObject({
  modes: z
    .looseObject({ currentModeId: z.string(), availableModes: z.array(z.looseObject({ id: z.string() })) })
    .nullable()
    .optional(),
  models: z
    .looseObject({ currentModelId: z.string(), availableModels: z.array(z.looseObject({ modelId: z.string() })) })
    .nullable()
    .optional(),
});

/** The offer in a session answer; an answer that names none offers nothing. */
export function sessionOffer(answer: unknown): AcpSessionOffer {
  const parsed = SessionAnswer.safeParse(answer);
  const a = parsed.success ? parsed.data : {};
  return {
    modes: a.modes?.availableModes.map((m) => m.id) ?? [],
    currentMode: a.modes?.currentModeId ?? null,
    models: Boolean(a.models),
    initialModel: a.models?.currentModelId ?? null,
  };
}

/** What a turn needs of the agent: the mode to be in (null: none to set) and the model (null: none to set). */
export interface AcpTurnTarget {
  mode: string | null;
  model: string | null;
}

const pick = (offered: readonly string[], candidates: readonly string[]): string | null =>
  candidates.find((c) => offered.includes(c)) ?? null;

const refuse = (agent: string, what: string): never => {
  throw new BatonError('unsupported', `the ACP agent ${agent} ${what}`, { agent });
};

/**
 * The mode and model a turn under these settings needs (pure). A setting the agent cannot
 * carry is a typed `unsupported`: a model when it offers no `session/set_model`, plan
 * interaction when it offers no plan mode, a runtime mode with no mode of its. An agent that
 * offers no modes at all runs the default runtime mode (`workspace_write`) as it runs, under
 * Baton's client-side fs and terminal policy; any other runtime mode is refused.
 */
export function acpTurnTarget(agent: string, offer: AcpSessionOffer, settings: TurnSettings): AcpTurnTarget {
  let model: string | null = null;
  if (settings.model !== null) {
    if (!offer.models) refuse(agent, `offers no session/set_model: model ${settings.model} cannot reach it`);
    model = settings.model;
  } else if (offer.models) model = offer.initialModel;
  return { mode: modeFor(agent, offer, settings.runtimeMode, settings.interactionMode), model };
}

function modeFor(agent: string, offer: AcpSessionOffer, runtime: RuntimeMode, interaction: InteractionMode) {
  if (interaction === 'plan')
    return pick(offer.modes, PLAN_MODES) ?? refuse(agent, 'offers no plan mode: interactionMode plan cannot reach it');
  if (offer.modes.length === 0)
    return runtime === 'workspace_write'
      ? null
      : refuse(agent, `offers no session modes: runtimeMode ${runtime} cannot reach it`);
  return (
    pick(offer.modes, RUNTIME_MODES[runtime]) ??
    refuse(agent, `offers no mode for runtimeMode ${runtime} (it offers ${offer.modes.join(', ')})`)
  );
}

/** A `current_mode_update` (the agent changed its mode itself): its mode id, else null. */
const ModeUpdate = z.looseObject({ sessionUpdate: z.literal('current_mode_update'), currentModeId: z.string() });
export const modeUpdateOf = (update: unknown): string | null => {
  const parsed = ModeUpdate.safeParse(update);
  return parsed.success ? parsed.data.currentModeId : null;
};

/** The live side: the requests that set them, and what the session last got. */
export interface AcpSettingsPort {
  request(method: 'session/set_mode' | 'session/set_model', params: Record<string, unknown>): Promise<unknown>;
}

/** What a session runs with now (the agent's own mode changes included). */
export interface AcpSessionSettings {
  offer: AcpSessionOffer;
  /** The model last set on this session (its initial one until Baton set another). */
  model: string | null;
}

export const sessionSettings = (answer: unknown): AcpSessionSettings => {
  const offer = sessionOffer(answer);
  return { offer, model: offer.initialModel };
};

/**
 * Before a turn's prompt: the mode and the model it needs, each set only when the session
 * is not in it already (the mode is compared with the one the agent last reported, so a
 * mode it left itself is set again). A request the agent refuses is a typed provider error.
 */
export async function applyAcpTurnSettings(
  agent: string,
  sessionId: string,
  settings: AcpSessionSettings,
  turn: TurnSettings,
  port: AcpSettingsPort,
): Promise<AcpTurnTarget> {
  const target = acpTurnTarget(agent, settings.offer, turn);
  if (target.mode !== null && target.mode !== settings.offer.currentMode) {
    await send(agent, `mode ${target.mode}`, port.request('session/set_mode', { sessionId, modeId: target.mode }));
    settings.offer.currentMode = target.mode;
  }
  if (target.model !== null && target.model !== settings.model) {
    await send(agent, `model ${target.model}`, port.request('session/set_model', { sessionId, modelId: target.model }));
    settings.model = target.model;
  }
  return target;
}

async function send(agent: string, what: string, request: Promise<unknown>): Promise<void> {
  try {
    await request;
  } catch (error) {
    if (error instanceof BatonError && error.code === 'timeout') throw error;
    const message = error && typeof error === 'object' && 'message' in error ? String(error.message) : String(error);
    throw new BatonError('provider_error', `the ACP agent ${agent} refused ${what}: ${message}`, { agent });
  }
}
