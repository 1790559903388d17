import type { Logger } from 'pino';
import type { Runtime } from '../actors/runtime.js';

/** The slow beat that fires timers when no commit has come for a while. */
const beatMs = 1_000;

export interface TimerPump {
  /** Fires due timers now (or once more after the pass under way). */
  pump(): void;
  /** Stops listening and beating at once; resolves when the pass under way has finished. */
  stop(): Promise<void>;
}

/**
 * Fires the runtime's due timers after each commit that changed timers and on a slow beat, one pass at a
 * time: a request during a pass runs one more pass after it, never a second in parallel.
 */
export function startTimerPump(runtime: Runtime, logger: Logger): TimerPump {
  let running: Promise<void> | null = null;
  let again = false;
  const pump = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await runtime.fireDueTimers();
        } catch (error) {
          logger.error({ err: error }, 'firing due timers failed');
        }
      } while (again);
    })().finally(() => (running = null));
  };
  // A commit that scheduled a timer asks for a pass on the next turn of the event loop, not
  // inside the commit: the due-timer query never sits between a command and its ack, and
  // commits that touch no timer cost it nothing. Timers that fall due with time, the beat fires.
  let asked = false;
  const stopListening = runtime.onTimersChanged(() => {
    if (asked) return;
    asked = true;
    setImmediate(() => {
      asked = false;
      pump();
    });
  });
  const beat = setInterval(pump, beatMs);
  return {
    pump,
    async stop() {
      clearInterval(beat);
      stopListening();
      await running;
    },
  };
}
