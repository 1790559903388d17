import type { Config } from '../config.js';
import { offlineResponder, ScriptedModelServer, type Responder } from '../providers/model/scripted-model-server.js';

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
 * model started for this Baton, answering with `responder` (by default the offline one).
 */
export async function openModelEndpoint(config: Config, responder?: Responder): Promise<OpenModelEndpoint> {
  if (config.model !== 'scripted' && config.codexBaseUrl) {
    return {
      model: { kind: 'configured', baseUrl: config.codexBaseUrl, name: config.codexModel ?? 'gpt-5.1-codex' },
      stop: async () => undefined,
    };
  }
  const scripted = await new ScriptedModelServer(responder ?? offlineResponder(config.scriptedDelayMs)).start();
  return {
    model: { kind: 'scripted', baseUrl: scripted.baseUrl, name: config.codexModel ?? 'baton-scripted' },
    stop: () => scripted.stop(),
  };
}
