import { describe, expect, it } from 'vitest';
import { AckFirst } from '../../src/server/ack-first.js';

interface E {
  sequence: number;
  commandId: string | null;
}
const byCommand = (sequence: number): E => ({ sequence, commandId: `cmd_${sequence}` });
const byProvider = (sequence: number): E => ({ sequence, commandId: null });
/** One turn of the event loop: what the hold waits for before it releases. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the ack-first hold on the fan-out', () => {
  it('sends events no command caused at once', () => {
    const published: number[][] = [];
    const hold = new AckFirst<E>((events) => published.push(events.map((e) => e.sequence)));
    hold.committed([byProvider(1), byProvider(2)]);
    expect(published).toEqual([[1, 2]]);
    expect(hold.pending).toEqual([]);
  });

  it("holds a command's events until the next turn, and keeps what follows behind them, in commit order", async () => {
    const published: number[][] = [];
    const hold = new AckFirst<E>((events) => published.push(events.map((e) => e.sequence)));
    hold.committed([byCommand(1)]);
    hold.committed([byProvider(2)]);
    hold.committed([byCommand(3), byProvider(4)]);
    expect(published).toEqual([]);
    expect(hold.pending.map((e) => e.sequence)).toEqual([1, 2, 3, 4]);
    await nextTurn();
    expect(published).toEqual([[1, 2, 3, 4]]);
    hold.committed([byProvider(5)]);
    expect(published).toEqual([[1, 2, 3, 4], [5]]);
  });

  it('drops what it holds when closed', async () => {
    const published: number[][] = [];
    const hold = new AckFirst<E>((events) => published.push(events.map((e) => e.sequence)));
    hold.committed([byCommand(1)]);
    hold.close();
    await nextTurn();
    expect(published).toEqual([]);
  });
});
