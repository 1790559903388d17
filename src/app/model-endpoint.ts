import type { Config } from '../config.js';
import { parseOrThrow } from '../domain/errors.js';
import { ClaudeEndpoint } from '../providers/claude/claude-environment.js';
import { offlineAssistant, offlineMessagesAssistant } from '../providers/model/offline-assistant.js';
import { ScriptedMessagesServer, type MessagesResponder } from '../providers/model/scripted-messages-server.js';
import { ScriptedModelServer, type Responder } from '../providers/model/scripted-model-server.js';

/** Where the model lives: an endpoint the user configured, or the offline scripted one. */
export interface ModelEndpoint {
  kind: 'configured' | 'scripted';
  baseUrl: string;
  name: string;
}

export interface OpenModelEndpoint {
  model: ModelEndpoint;
  /** Stops the offline scripted model, if this endpoint started one. */
  stop(): Promise<void>;
}

/**
 * The configured model endpoint, else (or when `model` is `scripted`) an offline scripted
 * model started for this Baton, answering with `responder` (by default the offline one:
 * it echoes, and acts on a few tags, `OFFLINE_TAGS`).
 */
export async function openModelEndpoint(config: Config, responder?: Responder): Promise<OpenModelEndpoint> {
  if (config.model !== 'scripted' && config.codexBaseUrl) {
    return {
      model: { kind: 'configured', baseUrl: config.codexBaseUrl, name: config.codexModel ?? 'gpt-5.1-codex' },
      stop: async () => undefined,
    };
  }
  const scripted = await new ScriptedModelServer(responder ?? offlineAssistant(config.scriptedDelayMs)).start();
  return {
    model: { kind: 'scripted', baseUrl: scripted.baseUrl, name: config.codexModel ?? 'baton-scripted' },
    stop: () => scripted.stop(),
  };
}

/** Where the Claude agent's Messages-API model lives: the configured endpoint, or an offline scripted one. */
export interface OpenClaudeEndpoint {
  kind: 'configured' | 'scripted';
  endpoint: ClaudeEndpoint;
  /** Stops the offline scripted Messages-API model, if this endpoint started one. */
  stop(): Promise<void>;
}

/** The model the Claude agent is told to use when `BATON_CLAUDE_MODEL` is not set. */
export const defaultClaudeModel = 'claude-sonnet-4-5';

/**
 * `BATON_CLAUDE_BASE_URL` (and `BATON_CLAUDE_MODEL`), else (or when `model` is `scripted`)
 * Baton's own scripted Messages-API server on 127.0.0.1, answering with `responder` (by
 * default the offline one, which echoes and acts on a few tags, `OFFLINE_TAGS`).
 */
export async function openClaudeEndpoint(config: Config, responder?: MessagesResponder): Promise<OpenClaudeEndpoint> {
  const model = config.claudeModel ?? defaultClaudeModel;
  if (config.model !== 'scripted' && config.claudeBaseUrl) {
    const endpoint = parseOrThrow(
      ClaudeEndpoint,
      { baseUrl: config.claudeBaseUrl, model },
      'invalid_payload',
      'BATON_CLAUDE_BASE_URL',
    );
    return { kind: 'configured', endpoint, stop: async () => undefined };
  }
  const scripted = await new ScriptedMessagesServer(
    responder ?? offlineMessagesAssistant(config.scriptedDelayMs),
  ).start();
  return { kind: 'scripted', endpoint: { baseUrl: scripted.baseUrl, model }, stop: () => scripted.stop() };
}
