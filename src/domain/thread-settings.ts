/**
 * The thread settings a command may set and a provider may or may not carry to its agent.
 * `acpAgent` names the ACP agent a thread with provider `acp` runs (only that provider carries it).
 */
export const threadSettings = ['model', 'runtimeMode', 'interactionMode', 'acpAgent'] as const;
export type ThreadSetting = (typeof threadSettings)[number];
