/**
 * Baton's durable timers. Machines use no XState delays (a restored actor would wait on a
 * timer that was never persisted): an action emits a `timer` output with a due time, the
 * runtime keeps it in the timers table and delivers an ordinary event when it is due. The
 * chart cannot see that inside an action, so the timers are named here, and
 * test/console/statechart-model.test.ts checks them against the machines (every machine
 * that schedules one is listed, and scheduling it yields this key and event).
 */
export interface DurableTimer {
  /** The chart's name in statecharts/. */
  machine: string;
  /** The timer's key within its entity. */
  key: string;
  /** The event it delivers when due. */
  event: string;
  /** When it is due, in words. */
  due: string;
  /** The action that schedules it, and those that cancel it. */
  scheduledBy: string;
  cancelledBy: string[];
}

export const durableTimers: readonly DurableTimer[] = [
  {
    machine: 'runtime-request',
    key: 'expire',
    event: 'EXPIRE',
    due: "at the request's expiresAt, when it has one",
    scheduledBy: 'scheduleExpiry',
    cancelledBy: ['markAnswering', 'close'],
  },
];

export const timersOf = (machine: string): DurableTimer[] => durableTimers.filter((t) => t.machine === machine);
