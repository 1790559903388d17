import { describe, expect, it } from 'vitest';
import type { ThreadId } from '../../src/domain/ids.js';
import { useConsoleBaton } from '../support/console-baton.js';
import { ok, ThreadClient } from '../support/thread-client.js';
import { agentWait, openConsole, screenshot } from './console-page.js';

// A real `baton serve` child (the real Codex against the scripted model) watched through a
// real chromium: the statechart viewer and the design-review mode.

const rig = useConsoleBaton({ client: true });

describe('the statechart viewer', () => {
  it("highlights a run's state on its chart as it moves from queued to running to finalizing to completed", async () => {
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    const { threadId } = ok<{ threadId: ThreadId }>(
      await rig.client.command('thread.create', { cwd: rig.baton.workspace(), title: 'Charts' }),
    );
    await page.goto(`${rig.baton.url}/#/thread/${threadId}/charts`);
    await page.locator('[data-kind="thread_supervisor"][data-actor]').waitFor();

    // The second run waits behind the first (a slow reply), so it is queued long enough to see.
    ok(await rig.client.command('thread.message.send', { threadId, text: '[slow] first' }));
    const { runId } = ok<{ runId: string }>(
      await rig.client.command('thread.message.send', {
        threadId,
        text: '[slow] second',
        dispatchMode: 'queue_after_active',
      }),
    );
    const actor = page.locator(`[data-actor="${runId}"]`);
    await actor.click();
    const chart = page.locator('svg[data-chart="run"]');
    const taken = (event: string) => chart.locator(`.sc-edge.is-taken[data-event="${event}"]`);

    // Each state as it happens: the highlighted state box, and the arrow just taken.
    await chart.and(page.locator('[data-current="queued"]')).waitFor({ timeout: agentWait });
    await chart.locator('.sc-state.is-current[data-state="queued"]').waitFor();
    await chart.and(page.locator('[data-current="live.running.working"]')).waitFor({ timeout: agentWait });
    await taken('TURN_STARTED').waitFor();
    expect(
      await chart.locator('.sc-state.is-active').evaluateAll((els) => els.map((e) => e.getAttribute('data-state'))),
    ).toEqual(['live', 'live.running', 'live.running.working']);
    await screenshot(page, 'statecharts');
    await chart.and(page.locator('[data-current="completed"]')).waitFor({ timeout: agentWait });
    await taken('done').waitFor();
    await page.locator('.sc-now', { hasText: 'by done [endsCompleted]' }).waitFor();

    // Every state the page highlighted, in order: each one seen, none skipped.
    const seen = (await actor.getAttribute('data-state-history'))!.split(' ');
    expect(seen[0]).toBe('queued');
    expect(seen.slice(1, -2).filter((s) => s !== 'live.starting')).toEqual(['live.running.working']);
    expect(seen.at(-2)).toMatch(/^finalizing\./);
    expect(seen.at(-1)).toBe('completed');

    // The run's own events beside its chart, the barrier's steps among them.
    const events = page.locator('.sc-events');
    await events.locator('li', { hasText: 'run.terminal' }).waitFor();
    expect(await events.locator('li', { hasText: 'run.barrier-step' }).count()).toBe(5);
    expect(await events.locator('li', { hasText: 'node.' }).count()).toBe(0);

    // The other actors of the thread, by kind, in their states.
    for (const kind of ['thread_supervisor', 'run_attempt', 'execution_node', 'provider_session', 'provider_thread'])
      await page.locator(`.sc-kind[data-kind="${kind}"]`).waitFor();
    await page.locator('[data-kind="thread_supervisor"][data-actor][data-state="active.idle"]').waitFor();
    expect(rig.browser.problems).toEqual([]);
  });

  it('shows what happened before the page opened, and is keyboard reachable', async () => {
    const { threadId } = ok<{ threadId: ThreadId }>(
      await rig.client.command('thread.create', { cwd: rig.baton.workspace() }),
    );
    const t = await ThreadClient.open(rig.baton.url, rig.baton.token, threadId);
    expect(await t.ended(await t.send('before the page'))).toBe('completed');
    t.client.close();
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    await page.goto(`${rig.baton.url}/#/thread/${threadId}/charts`);
    // The finished run is chosen first; its events so far are beside its chart.
    await page.locator('svg[data-chart="run"][data-current="completed"]').waitFor();
    await page.locator('.sc-events li', { hasText: 'run.terminal' }).waitFor();
    await page.locator('.sc-events li', { hasText: 'run.queued' }).waitFor();
    // An actor is chosen from the keyboard: its button, Enter.
    const supervisor = page.locator('[data-kind="thread_supervisor"][data-actor]');
    await supervisor.focus();
    await page.keyboard.press('Enter');
    await page.locator('svg[data-chart="thread-supervisor"][data-current="active.idle"]').waitFor();
    expect(await supervisor.getAttribute('aria-pressed')).toBe('true');
    await page.locator('.sc-events li', { hasText: 'thread.created' }).waitFor();
    expect(rig.browser.problems).toEqual([]);
  });
});

describe('the design-review mode', () => {
  it('draws every machine and labels its guards, actions and timers', async () => {
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    await page.getByRole('link', { name: 'Design review' }).click();
    const names = [
      'thread-supervisor',
      'run',
      'run-attempt',
      'execution-node',
      'provider-session',
      'provider-thread',
      'runtime-request',
      'context-transfer',
      'context-handoff',
    ];
    for (const name of names)
      await page.locator(`[data-review-machine="${name}"] svg[data-chart="${name}"] .sc-state`).first().waitFor();
    expect(
      await page
        .locator('[data-review-machine]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-review-machine'))),
    ).toEqual(names);

    // A guard, on the chart and in the table.
    const run = page.locator('[data-review-machine="run"]');
    await run.locator('.sc-edge-label', { hasText: 'TURN_STARTED [isActiveAttempt]' }).waitFor();
    await run.locator('tr', { hasText: 'TURN_STARTED' }).locator('.sc-guard', { hasText: 'isActiveAttempt' }).waitFor();
    // A composite guard the exported JSON leaves out.
    await page
      .locator('[data-review-machine="thread-supervisor"] .sc-guard', {
        hasText: 'modeIs(steer_active|auto) ∧ targetsActiveRun ∧ canSteerNatively',
      })
      .waitFor();
    // Actions: on the arrow, and in the table.
    await run.locator('.sc-edge-label', { hasText: 'START / start' }).waitFor();
    // A timer: the durable expiry of a runtime request, on the chart and in the table.
    const request = page.locator('[data-review-machine="runtime-request"]');
    await request.locator('.sc-edge.is-timer .sc-edge-label', { hasText: 'EXPIRE (timer expire)' }).waitFor();
    expect(await request.locator('[data-timer="timer"]').textContent()).toContain(
      "durable timer 'expire': at the request's expiresAt",
    );
    expect(rig.browser.problems).toEqual([]);
  });

  it('fits a phone: the page does not scroll sideways, the charts scroll in their frames', async () => {
    const page = await rig.browser.page({ width: 390, height: 844 });
    await openConsole(page, rig.baton.consoleUrl);
    await page.goto(`${rig.baton.url}/#/review`);
    await page.locator('[data-review-machine="run"] svg .sc-state').first().waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.getByRole('button', { name: 'Fit to width' }).first().click();
    await page.locator('svg[data-fit="true"]').first().waitFor();
    expect(rig.browser.problems).toEqual([]);
  });
});
