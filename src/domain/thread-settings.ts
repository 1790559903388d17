/** The thread settings a command may set and a provider may or may not carry to its agent. */
export const threadSettings = ['model', 'runtimeMode', 'interactionMode'] as const;
export type ThreadSetting = (typeof threadSettings)[number];
