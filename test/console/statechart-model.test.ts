import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ELK as Elk } from 'elkjs/lib/elk-api.js';
import { createActor, createMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import { chartModel, type ChartModel } from '../../console/src/charts/chart-model.js';
import { eventSubject } from '../../console/src/charts/event-subject.js';
import { layoutChart } from '../../console/src/charts/layout.js';
import { charts, chartOfKind } from '../../console/src/charts/machines.js';
import { durableTimers } from '../../console/src/charts/timers.js';
import { takenPath } from '../../console/src/charts/transition.js';
import { runtimeRequestMachine } from '../../src/machines/runtime-request.machine.js';

// The console's charts (console/src/charts/) against what `npm run statecharts` exports:
// the same states, the same edges with the same labels, and the durable timers the
// machines really schedule.

const dir = new URL('../../statecharts/', import.meta.url);
/** ELK in process (the browser runs it in a Web Worker). */
const ELK = createRequire(import.meta.url)('elkjs/lib/elk.bundled.js') as new () => Elk;
const chart = (name: string) => charts.find((c) => c.name === name)!;

/** The edges of a chart written as statecharts/*.mmd writes them. */
function mermaidEdges(model: ChartModel): Set<string> {
  const sid = (path: string) => (path === '' ? 'root' : path.replace(/\./g, '__'));
  const edges = new Set<string>();
  for (const t of model.transitions) {
    if (t.source === '') continue;
    const event = t.kind === 'always' ? 'always' : t.kind === 'done' ? 'done' : t.eventType;
    const label = `${event}${t.guard ? ` [${t.guard}]` : ''}`;
    const text = t.targets.length ? label : `${label}${t.actions.length ? ` / ${t.actions.join(', ')}` : ''}`;
    for (const target of t.targets.length ? t.targets : [t.source])
      edges.add(`${sid(t.source)} --> ${sid(target)}: ${text.replace(/"/g, "'").replace(/:/g, '∶')}`);
  }
  return edges;
}

const statePaths = (json: { states?: Record<string, unknown> }, prefix = ''): string[] =>
  Object.entries(json.states ?? {}).flatMap(([key, child]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    return [path, ...statePaths(child as { states?: Record<string, unknown> }, path)];
  });

describe('the console draws the exported charts', () => {
  it('has a chart for every exported machine, with its states and every edge of its .mmd', () => {
    const exported = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -5))
      .sort();
    expect(charts.map((c) => c.name).sort()).toEqual(exported);
    for (const c of charts) {
      const json = JSON.parse(readFileSync(new URL(`${c.name}.json`, dir), 'utf8'));
      expect(c.machineId).toBe(json.id);
      expect([...c.states.keys()].filter(Boolean).sort()).toEqual(statePaths(json).sort());
      const mmd = readFileSync(new URL(`${c.name}.mmd`, dir), 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => / --> /.test(l) && !l.includes('[*]'));
      expect(mermaidEdges(c), c.name).toEqual(new Set(mmd));
    }
  });

  it('maps every entity kind with a machine to its chart', () => {
    expect(chartOfKind('run')?.name).toBe('run');
    expect(chartOfKind('run_attempt')?.name).toBe('run-attempt');
    expect(chartOfKind('thread_supervisor')?.name).toBe('thread-supervisor');
    expect(chartOfKind('checkpoint')).toBeNull();
  });

  it('labels composite guards and eventless transitions', () => {
    const supervisor = chart('thread-supervisor');
    const send = supervisor.transitions.filter((t) => t.source === 'active.busy' && t.eventType === 'SEND');
    expect(send.map((t) => t.guard)).toContain('modeIs(steer_active|auto) ∧ targetsActiveRun ∧ canSteerNatively');
    const always = chart('run-attempt').transitions.filter((t) => t.kind === 'always');
    expect(always.map((t) => `${t.source}>${t.targets[0]} ${t.guard}`)).toEqual([
      'ended>completed endsCompleted',
      'ended>interrupted endsInterrupted',
      'ended>failed null',
    ]);
  });

  it('names every durable timer a machine schedules, as the machine schedules it', () => {
    const machineFiles = readdirSync(new URL('../../src/machines/', import.meta.url)).filter((f) =>
      f.endsWith('.machine.ts'),
    );
    const scheduling = machineFiles
      .filter((f) => /op: 'schedule'/.test(readFileSync(new URL(`../../src/machines/${f}`, import.meta.url), 'utf8')))
      .map((f) => f.replace('.machine.ts', ''));
    expect([...new Set(durableTimers.map((t) => t.machine))].sort()).toEqual(scheduling.sort());

    const [expire] = durableTimers;
    const outputs: { type: string; op?: string; key?: string; event?: { type: string } }[] = [];
    const actor = createActor(runtimeRequestMachine, {
      input: {
        requestId: 'req_1',
        threadId: 'thr_1',
        runId: 'run_1',
        nodeId: 'node_r',
        provider: 'codex',
        kind: 'command',
        prompt: 'run ls?',
        details: {},
        providerSessionId: 'psess_1',
        expiresAt: 60_000,
      } as never,
    });
    actor.on('*', (o) => void outputs.push(o as (typeof outputs)[number]));
    actor.start();
    const schedule = outputs.find((o) => o.type === 'timer' && o.op === 'schedule');
    expect(schedule).toMatchObject({ key: expire!.key, event: { type: expire!.event } });
    actor.send({ type: 'RESPOND', decision: 'accept', answers: null } as never);
    expect(outputs.filter((o) => o.type === 'timer' && o.op === 'cancel').map((o) => o.key)).toEqual([expire!.key]);

    const model = chart('runtime-request');
    expect(model.states.get('')!.entry).toContain(expire!.scheduledBy);
    const fired = model.transitions.find((t) => t.eventType === expire!.event)!;
    expect(fired).toMatchObject({ kind: 'timer', source: 'pending', targets: ['expired'] });
    expect(fired.timer).toContain(`durable timer '${expire!.key}'`);
  });

  it('labels an XState delay as a timer too (Baton machines have none: delays are not persisted)', () => {
    const machine = createMachine({
      id: 'delayed',
      initial: 'waiting',
      states: { waiting: { after: { 500: 'late' } }, late: {} },
    });
    const [t] = chartModel('delayed', machine, 1, '', []).transitions;
    expect(t).toMatchObject({ kind: 'after', event: 'after 500ms', source: 'waiting', targets: ['late'] });
    expect(t!.timer).toBe('fires 500ms after entering waiting');
  });
});

describe('the transition just taken', () => {
  const run = chart('run');
  const path = (prev: unknown, curr: unknown) => {
    const p = takenPath(run, prev as never, curr as never);
    return p && { steps: p.transitions.map((t) => t.event), last: p.last.map((t) => t.event) };
  };

  it('is the one transition between two states, or the shortest chain when the actor moved several steps', () => {
    expect(path('queued', { live: 'starting' })).toEqual({ steps: ['START'], last: ['START'] });
    expect(path({ live: { running: 'working' } }, { finalizing: 'checkpoint' })?.steps).toEqual([
      'TURN_TERMINAL',
      'BARRIER_STEP_DONE',
      'BARRIER_STEP_DONE',
      'BARRIER_STEP_DONE',
      'BARRIER_STEP_DONE',
    ]);
    // `done` leaves a compound state only from its final child.
    expect(path({ finalizing: 'checkpoint' }, 'completed')).toEqual({
      steps: ['CHECKPOINT_RECORDED', 'done'],
      last: ['done'],
    });
    expect(path('completed', 'completed')).toBeNull();
    expect(path('cancelled', 'completed')).toBeNull();
  });

  it('names every transition that could have been the last step', () => {
    const attempt = chart('run-attempt');
    const p = takenPath(attempt, 'pending', 'ended')!;
    expect(p.last.map((t) => `${t.event} ${t.guard ?? ''}`.trim())).toEqual(['TURN_TERMINAL isOwnRootTurn', 'END']);
  });
});

describe('the history beside a chart', () => {
  it('files each event under the actor it is about', () => {
    const e = (type: string, payload: unknown) => eventSubject({ type, threadId: 'thr_1', payload });
    expect(e('run.status-changed', { runId: 'run_1' })).toBe('run_1');
    expect(e('run.queue-reordered', { order: [] })).toBe('thr_1');
    expect(e('thread.archived', {})).toBe('thr_1');
    expect(e('attempt.created', { attempt: { id: 'att_1' } })).toBe('att_1');
    expect(e('node.created', { node: { id: 'node_1' } })).toBe('node_1');
    expect(e('runtime-request.opened', { request: { id: 'req_1' } })).toBe('req_1');
    expect(e('provider-session.changed', { session: { id: 'psess_1' } })).toBe('psess_1');
    expect(e('provider-thread.bound', { providerThread: { id: 'pthr_1' } })).toBe('pthr_1');
    expect(e('context-handoff.status-changed', { handoffId: 'hand_1' })).toBe('hand_1');
    expect(e('message.delta', { messageId: 'msg_1' })).toBeNull();
  });
});

describe('the layout', () => {
  it('gives every state a box and every transition that moves an arrow, in every chart', async () => {
    const elk = new ELK();
    for (const model of charts) {
      for (const detail of ['compact', 'full'] as const) {
        const laid = await layoutChart(model, (text) => text.length * 7, elk, detail);
        expect(laid.states.map((s) => s.path).sort()).toEqual([...model.states.keys()].filter(Boolean).sort());
        const moving = model.transitions.flatMap((t) => t.targets.map((_, k) => `e:${t.id}:${k}`));
        const drawn = laid.edges.filter((e) => e.transition).map((e) => e.id);
        expect(drawn.sort(), `${model.name} ${detail}`).toEqual(moving.sort());
        for (const e of laid.edges) expect(e.points.length).toBeGreaterThanOrEqual(2);
      }
    }
  });
});
