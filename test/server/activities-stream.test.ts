import { describe, expect, it } from 'vitest';
import type { CommandAck } from '../../src/client/baton-client.js';
import type { Activity } from '../../src/domain/projections.js';
import type { ModelTurn } from '../../src/providers/model/scripted-model-server.js';
import { activityEventTypes } from '../../src/projections/activities.js';
import { useBatons } from '../support/baton-app.js';
import { tempDir } from '../support/temp.js';
import type { EventType } from '../../src/domain/events.js';
import { RuntimeRequestId, ThreadId } from '../../src/domain/ids.js';

/**
 * The activities stream over the real API: a real Baton, the real Codex and the scripted
 * model. A subscriber gets the feed's snapshot, then the events that add to it; a new
 * snapshot holds the activities keyed by run and node.
 */
const { baton, client, onCleanup } = useBatons();

function resultOf<R>(ack: CommandAck): R {
  if (!ack.ok) throw new Error(`refused: ${ack.error.code}: ${ack.error.message}`);
  return ack.result as R;
}

describe('the activities stream', () => {
  it('serves a snapshot, then the events of tools, approvals and checkpoints, keyed by run and node', async () => {
    const script: ModelTurn[] = [
      { kind: 'exec', command: 'echo ok', escalated: true },
      { kind: 'text', text: 'Done.' },
    ];
    const app = await baton((_r, i) => script[i] ?? { kind: 'text', text: 'more' });
    const c = await client(app);
    const ws = tempDir('baton-activities-ws-');
    onCleanup(ws.cleanup);
    const { threadId } = resultOf<{ threadId: string }>(await c.command('thread.create', { cwd: ws.dir }));
    const types: EventType[] = [];
    let wake = (): void => undefined;
    // Resolves once the stream has carried what `condition` waits for (woken by each event, no polling).
    const until = (condition: () => boolean) =>
      new Promise<void>((resolve) => ((wake = () => void (condition() && resolve())), wake()));
    const { subscription, snapshot } = await c.subscribe(
      { stream: 'activities', threadId: ThreadId.parse(threadId) },
      (e) => (types.push(e.type), wake()),
    );
    expect(snapshot).toEqual({ activities: [] });
    const { runId } = resultOf<{ runId: string }>(
      await c.command('thread.message.send', { threadId: ThreadId.parse(threadId), text: 'run it' }),
    );
    await until(() => types.includes('runtime-request.opened'));
    const request = app.runtime.store.projections.list('requests', threadId)[0]!;
    resultOf(
      await c.command('runtime-request.respond', { requestId: RuntimeRequestId.parse(request.id), decision: 'accept' }),
    );
    // The baseline checkpoint (run 0), then the run's own.
    await until(() => types.filter((t) => t === 'checkpoint.recorded').length === 2);
    // Only the events that add activities are carried.
    expect(types.every((t) => activityEventTypes.has(t))).toBe(true);
    const again = (await c.query({ type: 'snapshot', request: { stream: 'activities', threadId } })) as {
      result: { snapshot: { activities: Activity[] } };
    };
    const feed = again.result.snapshot.activities.filter((a) => a.runId === runId);
    const tool = app.runtime.store.projections.list('graph_nodes', threadId).find((n) => n.kind === 'tool_call')!;
    expect(feed.map((a) => [a.kind, a.nodeId])).toEqual([
      ['tool.started', tool.id],
      ['approval.requested', request.nodeId],
      ['approval.resolved', request.nodeId],
      ['tool.completed', tool.id],
      ['checkpoint.captured', null],
    ]);
    expect(feed.find((a) => a.kind === 'approval.resolved')!.status).toBe('accept');
    await subscription.close();
  }, 60_000);
});
