import { describe, expect, it } from 'vitest';
import { useConsoleBaton } from '../support/console-baton.js';
import { SLOW_WORDS as slowWords } from '../../src/providers/model/offline-assistant.js';
import { agentWait, createThread, openConsole, runStatus, sendMessage } from './console-page.js';

const rig = useConsoleBaton();

describe('the console across a reload', () => {
  it('a reload mid-stream resumes after its cursor: every word of the reply once, nothing missing, nothing twice', async () => {
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    const threadId = await createThread(page, rig.baton.workspace());
    await sendMessage(page, '[slow] keep counting');
    const reply = page.locator('.message.assistant');
    await reply.and(page.locator('[aria-busy="true"]')).filter({ hasText: 'w05' }).waitFor({ timeout: agentWait });
    const before = (await reply.locator('.text').textContent())!;
    expect(before.split(' ').length).toBeLessThan(slowWords.length);

    // What the page asks for once reloaded, as it goes over the WebSocket.
    const subscribes: Record<string, unknown>[] = [];
    page.on('websocket', (ws) =>
      ws.on('framesent', ({ payload }) => {
        const m = /^\d+\["subscribe",(.*)\]$/.exec(String(payload));
        if (m) subscribes.push(JSON.parse(m[1]!) as Record<string, unknown>);
      }),
    );
    await page.reload();
    await page.locator('.connection[data-state="connected"]').waitFor();
    await reply.and(page.locator('[aria-busy="false"]')).waitFor({ timeout: agentWait });
    expect(await reply.locator('.text').textContent()).toBe(slowWords.join(' '));
    await runStatus(page, 1, 'completed');
    expect(await page.locator('.message.assistant').count()).toBe(1);
    expect(await page.locator('.message.user').count()).toBe(1);
    expect(await page.locator('.run-header').count()).toBe(1);
    // It came back from the state it kept when it went away, asking only for what followed its
    // cursor in the log it had it from.
    expect(subscribes).toContainEqual({
      stream: 'thread',
      threadId,
      afterSequence: expect.any(Number),
      logId: expect.stringMatching(/^log_[0-9a-f]{32}$/),
    });
    expect(subscribes.filter((s) => s.stream === 'thread' && s.afterSequence === undefined)).toEqual([]);
    expect(rig.browser.problems).toEqual([]);
  });
});

describe('the console across a dropped connection', () => {
  it('shows the connection going and coming back, and the stream resumes: every word once', async () => {
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    await createThread(page, rig.baton.workspace());
    await sendMessage(page, '[slow] and again');
    const reply = page.locator('.message.assistant');
    await reply.and(page.locator('[aria-busy="true"]')).filter({ hasText: 'w05' }).waitFor({ timeout: agentWait });
    let sockets = 0;
    page.on('websocket', () => (sockets += 1));
    await page.context().setOffline(true);
    await page.locator('.connection[data-state="reconnecting"], .connection[data-state="offline"]').waitFor();
    await page.context().setOffline(false);
    await page.locator('.connection[data-state="connected"]').waitFor({ timeout: agentWait });
    await reply.and(page.locator('[aria-busy="false"]')).waitFor({ timeout: agentWait });
    expect(await reply.locator('.text').textContent()).toBe(slowWords.join(' '));
    expect(await page.locator('.message.assistant').count()).toBe(1);
    // It was a new connection: the old one was dropped.
    expect(sockets).toBeGreaterThanOrEqual(1);
    expect(
      rig.browser.problems.filter((p) => !/WebSocket connection .* failed|ERR_INTERNET_DISCONNECTED/.test(p)),
    ).toEqual([]);
  });
});
