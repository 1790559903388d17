import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { Command, commandTypes } from '../src/domain/commands.js';
import { DomainEvent, eventTypes } from '../src/domain/events.js';
import { ProviderCapabilities, capabilityGroups } from '../src/domain/capabilities.js';
import {
  idOf,
  idPrefixes,
  NewThreadId,
  ThreadId,
  type CheckpointId,
  type IdFamily,
  type RunAttemptId,
  type RunId,
} from '../src/domain/ids.js';
import { loadConfig } from '../src/config.js';
import { BatonError } from '../src/domain/errors.js';
import { ManualClock, SequentialIds, timeOrderedIds } from '../src/domain/sources.js';

describe('contracts', () => {
  it('parse a command of every type of the Socket.IO contract and refuse unknown or malformed ones', () => {
    expect(commandTypes).toEqual(
      expect.arrayContaining([
        'thread.create',
        'thread.message.send',
        'run.interrupt',
        'thread.stop',
        'runtime-request.respond',
        'queued-run.reorder',
        'queued-run.cancel',
        'queued-message.promote',
        'thread.fork',
        'thread.merge_back',
        'rollback.toRun',
        'rollback.node',
        'thread.settings.update',
        'thread.archive',
        'thread.delete',
      ]),
    );
    expect(
      Command.parse({ commandId: 'c1', type: 'thread.message.send', threadId: 't1', text: 'hi', dispatchMode: 'auto' }),
    ).toMatchObject({ type: 'thread.message.send' });
    expect(Command.safeParse({ commandId: 'c1', type: 'thread.teleport', threadId: 't1' }).success).toBe(false);
    expect(Command.safeParse({ commandId: 'c1', type: 'thread.message.send', threadId: 't1', text: '' }).success).toBe(
      false,
    );
    expect(
      Command.safeParse({
        commandId: 'c1',
        type: 'thread.message.send',
        threadId: 't1',
        text: 'x',
        dispatchMode: 'yolo',
      }).success,
    ).toBe(false);
    expect(Command.safeParse({ commandId: 'c1', type: 'run.interrupt', runId: 'r1', extra: true }).success).toBe(false);
  });

  it('brand ids and refuse ids with spaces or control characters', () => {
    expect(ThreadId.safeParse('thr_1').success).toBe(true);
    expect(ThreadId.safeParse('thr 1').success).toBe(false);
    expect(ThreadId.safeParse('').success).toBe(false);
  });

  it('take a client-chosen new thread id only in the thread id format, and a production thread id as one', () => {
    for (const threadId of ['thr_1', 'thr_kill', timeOrderedIds().next('thread')])
      expect(NewThreadId.safeParse(threadId).success, threadId).toBe(true);
    for (const threadId of ['run_1', 'pthr_1', 'thr_', 'thr', 'thr_a b', 'THR_1'])
      expect(NewThreadId.safeParse(threadId).success, threadId).toBe(false);
    for (const type of ['thread.create', 'thread.fork'] as const) {
      const base =
        type === 'thread.create'
          ? { cwd: '/w' }
          : { sourceThreadId: 'thr_a', source: { type: 'run', threadId: 'thr_a', runId: 'run_1' } };
      expect(Command.safeParse({ commandId: 'c1', type, threadId: 'run_1', ...base }).success, type).toBe(false);
      expect(Command.safeParse({ commandId: 'c1', type, threadId: 'thr_new', ...base }).success, type).toBe(true);
    }
  });

  it('make production ids that are valid app ids and sort in creation order, also within one millisecond and across clock ticks', () => {
    const clock = new ManualClock();
    const ids = timeOrderedIds(clock);
    const made: string[] = [];
    for (let tick = 0; tick < 3; tick++) {
      for (let i = 0; i < 500; i++) made.push(ids.next('event'));
      clock.advance(1);
    }
    expect(new Set(made).size).toBe(made.length);
    expect([...made].sort()).toEqual(made);
    expect(made.every((id) => id.startsWith('evt_') && ThreadId.safeParse(id).success)).toBe(true);
    // Branded without a parse: every family's id must still pass its family's schema.
    for (const family of Object.keys(idPrefixes) as IdFamily[]) {
      const id = ids.next(family);
      expect(idOf(family, id), family).toBe(id);
    }
    // Another source (another process) started later still sorts after this one's ids.
    clock.advance(1);
    expect(timeOrderedIds(clock).next('event') > made[made.length - 1]!).toBe(true);
  });

  it("make each family's ids as that family's branded type, and refuse to brand a malformed one", () => {
    for (const ids of [timeOrderedIds(), new SequentialIds('s')]) {
      expectTypeOf(ids.next('run')).toEqualTypeOf<RunId>();
      expectTypeOf(ids.next('attempt')).toEqualTypeOf<RunAttemptId>();
      expectTypeOf(ids.next('checkpoint')).toEqualTypeOf<CheckpointId>();
      expect(ids.next('attempt')).toMatch(/^att_/);
    }
    expect(() => new SequentialIds('a b').next('run')).toThrow();
  });

  it('declare the eleven capability groups', () => {
    expect(capabilityGroups).toHaveLength(11);
    expect(
      Object.keys(ProviderCapabilities.shape)
        .filter((k) => k !== 'version')
        .sort(),
    ).toEqual([...capabilityGroups].sort());
  });

  it('generate JSON Schema for commands and events from the zod schemas', () => {
    const commands = z.toJSONSchema(Command, { unrepresentable: 'any' }) as { oneOf?: unknown[]; anyOf?: unknown[] };
    expect((commands.oneOf ?? commands.anyOf)?.length).toBe(commandTypes.length);
    const events = z.toJSONSchema(DomainEvent, { unrepresentable: 'any' }) as { oneOf?: unknown[]; anyOf?: unknown[] };
    expect((events.oneOf ?? events.anyOf)?.length).toBe(eventTypes.length);
  });

  it('load configuration from the environment with defaults, and refuse bad values with a typed error', () => {
    const config = loadConfig({ BATON_PORT: '8123', BATON_DATA_DIR: '/tmp/baton-x' });
    expect(config).toMatchObject({ host: '127.0.0.1', port: 8123, dataDir: '/tmp/baton-x', model: 'auto' });
    expect(() => loadConfig({ BATON_PORT: 'eighty' })).toThrow(BatonError);
    expect(() => loadConfig({ BATON_MODEL: 'gpt-9' })).toThrow(/model/);
  });
});
