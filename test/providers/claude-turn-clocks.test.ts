import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ProviderEvent } from '../../src/domain/provider-events.js';
import type { ErrorInfo } from '../../src/domain/errors.js';
import { TurnClocks, type Escalation } from '../../src/providers/claude/claude-turn-clocks.js';

/** The two clocks on a Claude turn, on vitest's fake timers (the live test shows them on the real agent). */
describe('TurnClocks', () => {
  let quiet: ErrorInfo[];
  let unanswered: Escalation[];
  let clocks: TurnClocks;
  beforeEach(() => {
    vi.useFakeTimers();
    quiet = [];
    unanswered = [];
    clocks = new TurnClocks({
      turnIdleTimeoutMs: 1_000,
      interruptTimeoutMs: 500,
      onQuiet: (error) => quiet.push(error),
      onUnanswered: (escalation) => unanswered.push(escalation),
    });
  });
  afterEach(() => vi.useRealTimers());

  const completed = (status: 'interrupted' | 'completed'): ProviderEvent =>
    ({
      type: 'turn.completed',
      threadId: 'thr_a',
      runId: 'run_a',
      attemptId: 'att_a',
      nodeId: 'node_a',
      status,
      error: null,
    }) as ProviderEvent;

  it('a turn silent for the idle timeout goes quiet; each sign of life starts the wait again', () => {
    clocks.activity('att_a', false);
    vi.advanceTimersByTime(900);
    clocks.activity('att_a', false);
    vi.advanceTimersByTime(900);
    expect(quiet).toEqual([]);
    vi.advanceTimersByTime(100);
    expect(quiet).toEqual([{ code: 'timeout', message: expect.stringMatching(/nothing on the turn for 1000 ms/) }]);
  });

  it('an ask waiting on the user pauses the watch, and its answer starts it again', () => {
    clocks.activity('att_a', true);
    vi.advanceTimersByTime(10_000);
    expect(quiet).toEqual([]);
    clocks.activity('att_a', false);
    vi.advanceTimersByTime(1_000);
    expect(quiet).toHaveLength(1);
  });

  it("the watchdog's interrupted end is a failure with its timeout; another turn's end is passed on as it is", () => {
    clocks.activity('att_a', false);
    vi.advanceTimersByTime(1_000);
    expect(clocks.seen(completed('interrupted'))).toMatchObject({ status: 'failed', error: quiet[0] });
    expect(clocks.seen(completed('interrupted'))).toMatchObject({ status: 'interrupted', error: null });
  });

  it('an interrupt whose turn has not ended in time escalates, once; an end in time stops its clock', () => {
    clocks.interruptAsked('att_a', 'interrupted', 'Claude was asked to interrupt, and');
    vi.advanceTimersByTime(499);
    expect(unanswered).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(unanswered).toEqual([
      {
        runStatus: 'interrupted',
        error: { code: 'timeout', message: expect.stringMatching(/did not end within 500 ms of the interrupt/) },
      },
    ]);
    clocks.interruptAsked('att_a', 'interrupted', 'again');
    clocks.seen(completed('interrupted'));
    vi.advanceTimersByTime(5_000);
    expect(unanswered).toHaveLength(1);
  });

  it("a watchdog's interrupt escalates as a failure; stop() disarms everything", () => {
    clocks.activity('att_a', false);
    vi.advanceTimersByTime(1_000);
    clocks.interruptAsked('att_a', 'interrupted', 'x');
    vi.advanceTimersByTime(500);
    expect(unanswered.map((e) => e.runStatus)).toEqual(['failed']);
    clocks.activity('att_a', false);
    clocks.interruptAsked('att_a', 'interrupted', 'x');
    clocks.stop();
    vi.advanceTimersByTime(10_000);
    expect([quiet.length, unanswered.length]).toEqual([1, 1]);
  });
});
