import { z } from 'zod';
import type { Runtime } from '../actors/runtime.js';
import type { CommandType } from '../domain/commands.js';
import { BatonError } from '../domain/errors.js';
import type { McpScope } from './credentials.js';

/**
 * The caller's name for one call of a mutating tool. No colon: the command ids built from it
 * (`mcp:<principal>:<tool>:<clientRequestId>:<part>`) then split one way only.
 */
export const ClientRequestId = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_.-]+$/, 'a clientRequestId is letters, digits and _ . -')
  .describe(
    'Makes the call idempotent: a retry with the same clientRequestId returns the first call’s result and changes nothing',
  );

/**
 * The commands one tool call sends. Each is named by a part (`create`, `send`, `0`, `1`...)
 * under the call: with a `clientRequestId` the command ids are derived from it, so a retried
 * call sends the very same commands, and Baton answers each from its receipt (the runtime's
 * idempotency by commandId) instead of doing it again; without one, each call is new.
 */
export class ToolCommands {
  private readonly base: string;

  constructor(
    private readonly runtime: Runtime,
    scope: McpScope,
    tool: string,
    clientRequestId: string | undefined,
  ) {
    this.base = `mcp:${scope.principal}:${tool}:${clientRequestId ?? runtime.ids.next('command')}`;
  }

  commandId(part: string): string {
    return `${this.base}:${part}`;
  }

  /** Dispatches one command; a refusal is thrown as Baton's typed error (the tool's typed error). */
  async send<R extends Record<string, unknown> = Record<string, unknown>>(
    part: string,
    type: CommandType,
    payload: Record<string, unknown>,
  ): Promise<R> {
    // Options the caller left out are left out of the command, as a client on the wire would.
    const given = Object.entries(payload).filter(([, value]) => value !== undefined);
    const ack = await this.runtime.dispatch({ ...Object.fromEntries(given), type, commandId: this.commandId(part) });
    if (!ack.ok) throw new BatonError(ack.error.code, ack.error.message, ack.error.details);
    return ack.result as R;
  }
}
