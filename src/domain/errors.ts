import { z } from 'zod';

/**
 * Every refusal Baton gives is one of these codes. The same shape travels in command
 * acks, receipts and logs, so a client can switch on `code` without parsing messages.
 */
export const ErrorCode = z.enum([
  'invalid_command',
  'unknown_command_type',
  'invalid_payload',
  'unknown_event_type',
  'unknown_entity_kind',
  'unknown_projection',
  'not_found',
  'conflict',
  'invalid_transition',
  'not_resumable',
  'unsupported',
  'binding_conflict',
  'lease_lost',
  'schema_too_new',
  'provider_error',
  /** A connection without a valid token (or from a browser origin that is not allowed). */
  'unauthorized',
  /** Something Baton waited on did not answer in time (a provider request, a silent turn). */
  'timeout',
  'internal',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const ErrorInfo = z.object({
  code: ErrorCode,
  message: z.string(),
  details: z.unknown().optional(),
});
export type ErrorInfo = z.infer<typeof ErrorInfo>;

export class BatonError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'BatonError';
  }

  toInfo(): ErrorInfo {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

/** Turns a zod failure into a typed error whose details list each failing path. */
export function fromZodError(code: ErrorCode, what: string, error: z.ZodError): BatonError {
  const issues = error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    // A record's bad key says only "Invalid key in record": what the key schema said is inside.
    message:
      issue.code === 'invalid_key' && issue.issues.length
        ? `${issue.message}: ${issue.issues.map((inner) => inner.message).join('; ')}`
        : issue.message,
  }));
  const first = issues[0];
  const summary = first ? `${first.path || '(root)'}: ${first.message}` : 'invalid';
  return new BatonError(code, `${what} is invalid: ${summary}`, { issues });
}

/** Parses with a schema or throws a typed BatonError. */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  code: ErrorCode,
  what: string,
): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw fromZodError(code, what, result.error);
  return result.data;
}

export function toErrorInfo(error: unknown): ErrorInfo {
  if (error instanceof BatonError) return error.toInfo();
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'internal', message };
}
