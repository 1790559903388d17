import { ScriptedMessagesServer } from '../../src/providers/model/scripted-messages-server.js';
import { ScriptedModelServer, type RecordedRequest } from '../../src/providers/model/scripted-model-server.js';

/**
 * Both of Baton's scripted model APIs for one test that runs several providers: the
 * Messages API (Claude, claude-agent-acp) and the Responses API (Codex, codex-acp), and the
 * config that points a Baton's agents at them.
 */
export interface ScriptedModels {
  messages: ScriptedMessagesServer;
  responses: ScriptedModelServer;
  config: { claudeBaseUrl: string; codexBaseUrl: string };
}

/** Starts both; `onCleanup` stops them after the test. */
export async function startScriptedModels(onCleanup: (stop: () => Promise<void>) => void): Promise<ScriptedModels> {
  // Claude's one-token side requests (titles, probes) are answered apart from the script.
  const messages = await new ScriptedMessagesServer(undefined, {
    isSideRequest: (r) => r.body.max_tokens === 1,
  }).start();
  const responses = await new ScriptedModelServer().start();
  onCleanup(() => Promise.all([messages.stop(), responses.stop()]).then(() => undefined));
  return { messages, responses, config: { claudeBaseUrl: messages.baseUrl, codexBaseUrl: responses.baseUrl } };
}

/** The user texts of a Responses-API request (Codex, codex-acp), one per input item, its parts joined. */
export const responsesUserTexts = (request: RecordedRequest): string[] =>
  (Array.isArray(request.body.input) ? (request.body.input as Record<string, unknown>[]) : [])
    .filter((i) => i.role === 'user')
    .map((i) => (Array.isArray(i.content) ? (i.content as { text?: string }[]) : []).map((c) => c.text ?? '').join(''));
