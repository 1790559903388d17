/**
 * What the scripted model does on each request it gets, said without any provider's wire
 * format. Each provider's scenario channel translates these into its own scripted model's
 * script (Codex: the Responses-API `ModelTurn`s of the scripted model server).
 */
export type ModelStep =
  /** A reply, streamed word by word (or on `chunks`); `reasoning` first streams a reasoning summary in these parts. */
  | { kind: 'text'; text: string; chunks?: string[]; delayMs?: number; reasoning?: string[] }
  /** A shell command; `needsApproval` makes the agent ask before it runs it. */
  | { kind: 'command'; command: string; needsApproval?: boolean; callId: string }
  /** A new file written by the agent's file-editing tool. */
  | { kind: 'add_file'; path: string; content: string; callId: string }
  /** A plan proposed in plan mode, whole, and the reply beside it. */
  | { kind: 'proposed_plan'; plan: string; reply: string }
  /** A todo list (the agent's plan tool). */
  | { kind: 'todo'; steps: TodoStep[]; callId: string }
  /** Structured questions for the user. */
  | { kind: 'questions'; questions: Question[] }
  /** A web search the model runs itself, then a reply. */
  | { kind: 'web_search'; query: string; text: string }
  /** A call of a tool of an MCP server configured for the agent. */
  | { kind: 'mcp_call'; server: string; tool: string; args: Record<string, unknown>; callId: string }
  /** The model API answers with an HTTP error. */
  | { kind: 'error'; status: number; message: string }
  /** The model starts answering and never finishes (until the agent goes away). */
  | { kind: 'hang' }
  /**
   * The agent hands a task to a subagent of its own and waits for it (in the foreground):
   * the subagent's model requests play `steps`, then the parent's next request gets its result.
   */
  | { kind: 'subagent'; description: string; prompt: string; steps: ModelStep[]; callId: string };

export interface TodoStep {
  step: string;
  status: 'pending' | 'in_progress' | 'completed';
}

export interface Question {
  id: string;
  header: string;
  question: string;
  options?: { label: string; description: string }[];
}
