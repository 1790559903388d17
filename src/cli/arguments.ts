import type { z } from 'zod';
import { BatonError } from '../domain/errors.js';

/** A command line Baton cannot act on (a missing or malformed argument): exit code 2. */
export class UsageError extends BatonError {
  constructor(message: string) {
    super('invalid_command', message);
    this.name = 'UsageError';
  }
}

/**
 * Parses one command-line argument with the schema of what it names (a branded id, an
 * enum, a number), so a plain string becomes a typed value here, at the edge, or a
 * UsageError naming the argument.
 */
export function parseArgument<S extends z.ZodType>(schema: S, value: string | undefined, name: string): z.infer<S> {
  if (value === undefined) throw new UsageError(`missing ${name}`);
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new UsageError(
      `${name} ${JSON.stringify(value)} is invalid: ${parsed.error.issues[0]?.message ?? 'not accepted'}`,
    );
  return parsed.data;
}

/** Like parseArgument, for an argument that may be left out. */
export function parseOptionalArgument<S extends z.ZodType>(
  schema: S,
  value: string | undefined,
  name: string,
): z.infer<S> | undefined {
  return value === undefined ? undefined : parseArgument(schema, value, name);
}
