import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../src/actors/command-parse.js';
import { Command } from '../../src/domain/commands.js';

const update = { title: 'a title', threadId: 'thr_a', type: 'thread.settings.update', commandId: 'cmd_1' };

describe('parseCommand', () => {
  it("takes a well-formed command as it is, whatever its keys' order, as zod would parse it", () => {
    const parsed = parseCommand(update);
    expect(parsed.success).toBe(true);
    // Used as it is: no copy, and equal to zod's.
    expect(parsed.data).toBe(update);
    expect(parsed.data).toEqual(Command.parse(update));
    const send = { commandId: 'cmd_2', type: 'thread.message.send', threadId: 'thr_a', text: 'hi' };
    expect(parseCommand(send).data).toBe(send);
  });

  it('refuses with zod’s own issues what zod refuses', () => {
    const cases: unknown[] = [
      { ...update, extra: 1 },
      { ...update, title: 7 },
      { ...update, title: 'x'.repeat(501) },
      { ...update, type: 'thread.nope' },
      { type: 'thread.settings.update', threadId: 'thr_a' },
      null,
      'thread.settings.update',
    ];
    for (const raw of cases) {
      const ours = parseCommand(raw);
      const zods = Command.safeParse(raw);
      expect(ours.success).toBe(false);
      expect(ours.error?.issues).toEqual(zods.error?.issues);
    }
  });
});
