import { BatonClient, type CommandAck } from '../../src/client/baton-client.js';
import type { DomainEvent } from '../../src/domain/events.js';
import { RunId, RuntimeRequestId, ThreadId } from '../../src/domain/ids.js';

/** The result of an accepted command; a refusal fails the test with its error. */
export const ok = <R = Record<string, unknown>>(ack: CommandAck): R => {
  if (!ack.ok) throw new Error(`refused: ${ack.error.code}: ${ack.error.message}`);
  return ack.result as R;
};

/** The parts of a thread snapshot the API tests read. */
export interface Snapshot {
  runs: { id: string; status: string; ordinal: number }[];
  turnItems: { kind: string; text: string }[];
}

export const assistantTexts = (snap: Snapshot): string[] =>
  snap.turnItems.filter((i) => i.kind === 'assistant_message').map((i) => i.text);

/** A client on one thread: every event it sees, and waits for the one a test needs (with a deadline). */
export class ThreadClient {
  readonly events: DomainEvent[] = [];
  private readonly waiters: (() => boolean)[] = [];

  private constructor(
    readonly client: BatonClient,
    readonly threadId: ThreadId,
  ) {}

  /** Connects and subscribes; the caller closes `client` after the test. */
  static async open(url: string, token: string, threadId: string): Promise<ThreadClient> {
    const client = await BatonClient.connect(url, token);
    const t = new ThreadClient(client, ThreadId.parse(threadId));
    await client.subscribe({ stream: 'thread', threadId: t.threadId }, (e) => {
      t.events.push(e);
      for (const w of [...t.waiters]) if (w()) t.waiters.splice(t.waiters.indexOf(w), 1);
    });
    return t;
  }

  /** Resolves with what `pick` finds in the events seen so far or later. */
  next<T>(pick: (e: DomainEvent) => T | undefined, what: string, timeoutMs = 60_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const look = () => {
        for (const e of this.events) {
          const found = pick(e);
          if (found !== undefined) {
            clearTimeout(timer);
            resolve(found);
            return true;
          }
        }
        return false;
      };
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
      if (!look()) this.waiters.push(look);
    });
  }

  async send(text: string): Promise<RunId> {
    const { runId } = ok<{ runId: string }>(
      await this.client.command('thread.message.send', { threadId: this.threadId, text }),
    );
    return RunId.parse(runId);
  }

  /** The run's terminal status. */
  ended(runId: RunId): Promise<string> {
    return this.next(
      (e) => (e.type === 'run.terminal' && e.payload.runId === runId ? String(e.payload.status) : undefined),
      `run ${runId} to end`,
    );
  }

  /** The first approval request opened for the run. */
  approval(runId: RunId): Promise<{ id: string; kind: string }> {
    return this.next(
      (e) => (e.type === 'runtime-request.opened' && e.payload.request.runId === runId ? e.payload.request : undefined),
      `an approval request of run ${runId}`,
    );
  }

  async respond(requestId: string, decision: 'accept' | 'decline'): Promise<void> {
    ok(
      await this.client.command('runtime-request.respond', { requestId: RuntimeRequestId.parse(requestId), decision }),
    );
  }

  /** Sends a message whose one write is approved; resolves with the run's end. */
  async sendApproved(text: string): Promise<string> {
    const runId = await this.send(text);
    await this.respond((await this.approval(runId)).id, 'accept');
    return this.ended(runId);
  }

  async snapshot(): Promise<Snapshot> {
    const answer = await this.client.query({
      type: 'snapshot',
      request: { stream: 'thread', threadId: this.threadId },
    });
    return (answer.result as { snapshot: Snapshot }).snapshot;
  }
}
