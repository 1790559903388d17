import type { Runtime } from '../src/actors/runtime.js';

export interface ActiveRun {
  runId: string;
  rootNodeId: string;
}

/** A new thread whose first run is running (its turn reported started): ready for deltas. */
export async function threadWithActiveRun(runtime: Runtime, threadId: string): Promise<ActiveRun> {
  await runtime.dispatch({ commandId: `c_${threadId}`, type: 'thread.create', threadId, cwd: '/tmp' });
  const send = await runtime.dispatch({
    commandId: `s_${threadId}`,
    type: 'thread.message.send',
    threadId,
    text: 'go',
  });
  if (!send.ok) throw new Error(JSON.stringify(send));
  const start = runtime.store.outbox.list({ threadId }).find((e) => e.kind === 'provider.turn.start')!;
  const { attemptId, rootNodeId } = start.payload as { attemptId: string; rootNodeId: string };
  await runtime.ingest({
    type: 'turn.started',
    threadId,
    runId: start.runId,
    attemptId,
    nodeId: rootNodeId,
    nativeTurnRef: null,
  });
  return { runId: start.runId!, rootNodeId };
}
