import { z } from 'zod';

/**
 * The mode an ACP agent says its session runs in, as it says it: the `modes` of a
 * `session/new`, `resume`, `load` or `fork` answer (`currentModeId`, `availableModes` with
 * display names), a `current_mode_update` (the agent switched itself: claude-agent-acp 0.23.1
 * entering plan mode, or leaving it through an allowed ExitPlanMode), and the `mode`-category
 * option of a `config_option_update` (how both built-in agents confirm a `session/set_mode`,
 * for which they send no `current_mode_update`: measured, docs/acp.md).
 */

export interface AcpMode {
  id: string;
  /** The agent's display name for it, when it gave one. */
  name: string | null;
}

const Named = z.looseObject({ id: z.string().min(1), name: z.string().nullable().optional() });
const Modes = z.looseObject({ currentModeId: z.string().min(1), availableModes: z.array(z.unknown()) });
const Answer = z.looseObject({ modes: z.unknown().optional() });
const ModeUpdate = z.looseObject({ sessionUpdate: z.literal('current_mode_update'), currentModeId: z.string().min(1) });
const ConfigValue = z.looseObject({ value: z.string(), name: z.string().nullable().optional() });
const ConfigOption = z.looseObject({
  category: z.string().nullable().optional(),
  currentValue: z.unknown(),
  // A select's options, flat or in groups of `{ group, name, options }`.
  options: z.array(z.unknown()).optional(),
});
const ConfigUpdate = z.looseObject({
  sessionUpdate: z.literal('config_option_update'),
  configOptions: z.array(z.unknown()),
});

/** One session's modes: the names its agent gave them, and the one it last said it is in. */
export class AcpModes {
  private readonly names = new Map<string, string>();
  private current: string | null = null;

  /** The mode a session answer says the session is in; null when it names none or it is the known one. */
  fromAnswer(answer: unknown): AcpMode | null {
    const modes = Modes.safeParse(Answer.safeParse(answer).data?.modes);
    if (!modes.success) return null;
    for (const raw of modes.data.availableModes) {
      const m = Named.safeParse(raw);
      if (m.success && m.data.name) this.names.set(m.data.id, m.data.name);
    }
    return this.now(modes.data.currentModeId);
  }

  /** The mode a session update says the session is in now; null when it is no mode update or says nothing new. */
  fromUpdate(update: unknown): AcpMode | null {
    const switched = ModeUpdate.safeParse(update);
    if (switched.success) return this.now(switched.data.currentModeId);
    const config = ConfigUpdate.safeParse(update);
    if (!config.success) return null;
    for (const raw of config.data.configOptions) {
      const option = ConfigOption.safeParse(raw);
      if (!option.success || option.data.category !== 'mode' || typeof option.data.currentValue !== 'string') continue;
      for (const v of (option.data.options ?? []).flatMap(valuesOf))
        if (v.name && !this.names.has(v.value)) this.names.set(v.value, v.name);
      return option.data.currentValue ? this.now(option.data.currentValue) : null;
    }
    return null;
  }

  private now(id: string): AcpMode | null {
    if (id === this.current) return null;
    this.current = id;
    return { id, name: this.names.get(id) ?? null };
  }
}

const Group = z.looseObject({ options: z.array(z.unknown()) });

function valuesOf(raw: unknown): z.infer<typeof ConfigValue>[] {
  const value = ConfigValue.safeParse(raw);
  if (value.success) return [value.data];
  const group = Group.safeParse(raw);
  return group.success ? group.data.options.flatMap(valuesOf) : [];
}
