import { describe, expect, it } from 'vitest';
import { BatonClient } from '../../src/client/baton-client.js';
import { ThreadId } from '../../src/domain/ids.js';
import { useConsoleBaton } from '../support/console-baton.js';
import { agentWait, openConsole } from './console-page.js';

// A thread of 2,000 conversation items (a run waiting for an approval, then 1,999 messages
// queued behind it: each a run header and a message row) stays a screenful of DOM, and its
// end is reachable.

const queued = 1_999;
const label = (i: number) => `queued message ${String(i).padStart(4, '0')}`;

const rig = useConsoleBaton();

describe('a long thread', () => {
  it('renders only the rows in view at 2,000 items, and scrolling to the end shows the last message', async () => {
    const client = await BatonClient.connect(rig.baton.url, rig.baton.token);
    try {
      const created = await client.command('thread.create', { cwd: rig.baton.workspace(), title: 'Very long' });
      if (!created.ok) throw new Error(created.error.message);
      const threadId = ThreadId.parse(created.result.threadId);
      // The first run waits for an approval (it would wait for ever) while the rest queue behind it.
      let begun!: () => void;
      const replying = new Promise<void>((resolve) => (begun = resolve));
      const { subscription } = await client.subscribe({ stream: 'thread', threadId }, (event) => {
        if (event.type === 'runtime-request.opened') begun();
      });
      await client.command('thread.message.send', { threadId, text: '[approve] the first message' });
      await within(replying, agentWait, 'the first run to ask for approval');
      await subscription.close();
      // Sent in batches: Baton takes them in order (each lands behind the previous one in the queue).
      for (let i = 0; i < queued; i += 50)
        await Promise.all(
          Array.from({ length: Math.min(50, queued - i) }, (_, j) =>
            client.command('thread.message.send', { threadId, text: label(i + j), dispatchMode: 'queue_after_active' }),
          ),
        );
      const page = await rig.browser.page();
      await openConsole(page, rig.baton.consoleUrl);
      const started = Date.now();
      await page.goto(`${rig.baton.url}/#/thread/${threadId}`);
      const list = page.getByRole('list', { name: 'Conversation' });
      const last = list.locator('.message.user', { hasText: label(queued - 1) });
      const first = list.locator('.message.user', { hasText: '[approve] the first message' });
      // It opens at the bottom with the newest in view; a screenful of rows exists, not 4,000.
      await last.waitFor();
      const opened = Date.now() - started;
      expect(await list.locator('.wl-row').count()).toBeLessThan(60);
      expect(await first.count()).toBe(0);
      await list.evaluate((el) => void (el.scrollTop = 0));
      await first.waitFor();
      expect(await last.count()).toBe(0);
      expect(await list.locator('.wl-row').count()).toBeLessThan(60);
      // Back to the end by keyboard, as a reader would: the list is a tab stop, End scrolls it.
      await list.focus();
      await page.keyboard.press('End');
      await last.waitFor();
      await expect.poll(() => inView(last)).toBe(true);
      expect(await list.locator('.wl-row').count()).toBeLessThan(60);
      // A middle row is reached by scrolling there, and only a window around it is rendered.
      await list.evaluate((el) => void (el.scrollTop = el.scrollHeight / 2));
      await list
        .locator('.message.user', { hasText: /queued message 0[89]\d\d|queued message 1[01]\d\d/ })
        .first()
        .waitFor();
      expect(await list.locator('.wl-row').count()).toBeLessThan(60);
      expect(opened).toBeLessThan(15_000);
      await client.command('thread.stop', { threadId });
      expect(rig.browser.problems).toEqual([]);
    } finally {
      client.close();
    }
  });
});

/** Whether the element is wholly inside its scrolling list's visible box. */
function inView(locator: import('playwright-core').Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const box = el.closest('.wl')!.getBoundingClientRect();
    const r = el.getBoundingClientRect();
    return r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
  });
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms)),
  );
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
