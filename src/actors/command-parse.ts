import { Command } from '../domain/commands.js';
import { jsonForm } from '../persistence/json-form.js';

/** A string only when zod would accept the command and its parsed copy differs from it at most in key order. */
const asIs = jsonForm(Command, 'any');

/**
 * A command from outside, parsed. A well-formed command (nearly every one) is checked by
 * code generated from its schema and used as it is: zod's copy of it would differ only in
 * key order. Anything else goes through zod, which refuses it with its usual issues.
 * Measured in-process on `thread.settings.update`: 11 µs less per dispatch hot, 25 µs
 * paced at 200 commands/s.
 */
export function parseCommand(raw: unknown): ReturnType<typeof Command.safeParse> {
  return asIs(raw) !== false ? { success: true, data: raw as Command } : Command.safeParse(raw);
}
