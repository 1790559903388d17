import { z } from 'zod';

/**
 * A zod discriminated union over a list of schemas built at load time (one per event or
 * command type). zod wants a non-empty tuple; the list is checked to be one, not asserted.
 */
export function discriminatedUnionOf<T extends z.core.$ZodTypeDiscriminable>(
  key: string,
  schemas: readonly T[],
): z.ZodDiscriminatedUnion<[T, ...T[]]> {
  const [first, ...rest] = schemas;
  if (first === undefined) throw new Error(`a union on ${key} needs at least one schema`);
  return z.discriminatedUnion(key, [first, ...rest]);
}
