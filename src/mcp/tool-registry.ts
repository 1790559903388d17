import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import { BatonError, fromZodError, toErrorInfo, type ErrorInfo } from '../domain/errors.js';
import type { McpScope } from './credentials.js';

/** What one tool call runs with, besides its input. */
export interface ToolCall {
  scope: McpScope;
  /** Aborted when the caller goes away (or cancels) and when Baton stops. */
  signal: AbortSignal;
  /** Aborted when Baton stops: a call cut short by it answers so, before the endpoint closes. */
  stopping: AbortSignal;
  /** Tells the caller how a long call is going, when it asked to hear (a `progressToken`). */
  progress?: (progress: number, message: string) => void;
}

/** One MCP tool: its zod input (the single source of its JSON Schema and of validation) and what it does. */
export interface McpTool<S extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: S;
  /** Reads only (no command): no `clientRequestId`, safe to call again. */
  readOnly: boolean;
  /** Whether `scope` may see and call it (default: every scope). */
  available?: (scope: McpScope) => boolean;
  run(input: z.output<S>, call: ToolCall): Promise<Record<string, unknown>>;
}

/** Keeps each tool's handler typed by its own schema, then erases it for the registry. */
export const defineTool = <S extends z.ZodObject>(tool: McpTool<S>): McpTool => tool as unknown as McpTool;

/** A refusal as a tool result: `isError` with Baton's typed error as the structured content. */
export function toolError(error: ErrorInfo): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${error.code}: ${error.message}` }],
    structuredContent: { ...error },
  };
}

function toolResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

function describe(tool: McpTool): Tool {
  const { $schema: _, ...schema } = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' });
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: schema as Tool['inputSchema'],
    annotations: {
      title: tool.title,
      readOnlyHint: tool.readOnly,
      destructiveHint: false,
      // A mutating tool is idempotent when the caller names the call with a clientRequestId.
      idempotentHint: true,
      openWorldHint: false,
    },
  };
}

/**
 * The tools `/mcp` offers. Every input is parsed with its tool's zod schema before anything
 * runs, and every way a call can go wrong (an unknown tool, a bad input, a command Baton
 * refuses, a bug) comes back as a typed tool error, never as a failed HTTP request.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, { tool: McpTool; listed: Tool }>();

  constructor(
    tools: readonly McpTool[],
    private readonly logger: Logger,
  ) {
    for (const tool of tools) {
      if (this.tools.has(tool.name)) throw new BatonError('conflict', `two MCP tools are named ${tool.name}`);
      this.tools.set(tool.name, { tool, listed: describe(tool) });
    }
  }

  /** The tools `scope` may call, as `tools/list` gives them. */
  list(scope: McpScope): Tool[] {
    return [...this.tools.values()].filter(({ tool }) => tool.available?.(scope) ?? true).map((t) => t.listed);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** One tool's definition and its listing (the protocol doc reads them). */
  get(name: string): { tool: McpTool; listed: Tool } | null {
    return this.tools.get(name) ?? null;
  }

  async call(name: string, args: unknown, call: ToolCall): Promise<CallToolResult> {
    const entry = this.tools.get(name);
    if (!entry || !(entry.tool.available?.(call.scope) ?? true))
      return toolError({ code: 'not_found', message: `no tool ${name}: tools/list names the tools there are` });
    const parsed = entry.tool.input.safeParse(args ?? {});
    if (!parsed.success) return toolError(fromZodError('invalid_payload', `${name} input`, parsed.error).toInfo());
    try {
      return toolResult(await entry.tool.run(parsed.data, call));
    } catch (error) {
      if (!(error instanceof BatonError)) this.logger.error({ err: error, tool: name }, 'an MCP tool failed');
      return toolError(toErrorInfo(error));
    }
  }
}
