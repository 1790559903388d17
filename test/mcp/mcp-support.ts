import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { BatonApp } from '../../src/app/baton-app.js';
import type { DomainEvent } from '../../src/domain/events.js';
import type { RecordedRequest } from '../../src/providers/model/scripted-model-server.js';

// What the MCP tests share: an SDK client on a Baton's /mcp, typed tool results, the next event.

/** An SDK MCP client on the Baton's `/mcp` with `token` as its bearer token; `onCleanup` closes it. */
export async function mcpClient(
  app: Pick<BatonApp, 'url' | 'token'>,
  onCleanup: (c: () => Promise<void>) => void,
  token = app.token,
) {
  const client = new Client({ name: 'baton-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  onCleanup(() => client.close());
  return client;
}

/** A tool call's structured result: the value, or (isError) Baton's typed error. */
export async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { isError: result.isError === true, value: result.structuredContent as Record<string, any> };
}

export async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const { isError, value } = await call(client, name, args);
  if (isError) throw new Error(`${name} refused: ${JSON.stringify(value)}`);
  return value;
}

/** Resolves on the first committed event that `match`es (the runtime's publications; no polling). */
export function nextEvent(app: BatonApp, match: (e: DomainEvent) => boolean, timeoutMs = 30_000): Promise<DomainEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (stop(), reject(new Error('the event did not come in time'))), timeoutMs);
    const stop = app.runtime.onEvents((events) => {
      const found = events.find(match);
      if (found) (stop(), clearTimeout(timer), resolve(found));
    });
  });
}

/** Resolves once `check()` holds, read now and after each commit (no polling). */
export function untilCommitted(
  app: Pick<BatonApp, 'runtime'>,
  check: () => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<void> {
  if (check()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (stop(), reject(new Error(`timed out waiting for ${what}`))), timeoutMs);
    const stop = app.runtime.onEvents(() => {
      if (check()) (stop(), clearTimeout(timer), resolve());
    });
  });
}

/** A raw `tools/list` POST to `/mcp` with these headers. */
export const listToolsWith = (app: Pick<BatonApp, 'url'>, headers: Record<string, string>) =>
  fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });

/** The output of the last tool call in a Responses-API request Codex made (what the tool answered the model). */
export function lastToolOutput(request: RecordedRequest): string {
  const input = Array.isArray(request.body.input) ? (request.body.input as Record<string, unknown>[]) : [];
  const output = [...input].reverse().find((i) => i.type === 'function_call_output')?.output;
  if (typeof output === 'string') return output;
  return JSON.stringify(output ?? null);
}

/** The user text of a Responses-API request (what the agent was asked), joined. */
export function userText(request: RecordedRequest): string {
  const input = Array.isArray(request.body.input) ? (request.body.input as Record<string, unknown>[]) : [];
  return input
    .filter((i) => i.role === 'user')
    .flatMap((i) => (Array.isArray(i.content) ? (i.content as { text?: string }[]) : []))
    .map((c) => c.text ?? '')
    .join('\n');
}

/** An environment variable of a running process, read from /proc (what that process was given). */
export function processEnv(pid: number, name: string): string | null {
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  const entry = entries.find((e) => e.startsWith(`${name}=`));
  return entry ? entry.slice(name.length + 1) : null;
}

/** Answers every approval the Baton's threads ask for (an agent may ask before it calls an MCP tool). */
export function approveAll(app: Pick<BatonApp, 'runtime'>, onCleanup: (c: () => void) => void): void {
  const answered = new Set<string>();
  const stop = app.runtime.onEvents(() => {
    for (const r of app.runtime.store.projections.list('requests')) {
      if (r.status !== 'pending' || answered.has(r.id)) continue;
      answered.add(r.id);
      void app.runtime.dispatch({
        type: 'runtime-request.respond',
        commandId: `cmd_approve_${r.id}`,
        requestId: r.id,
        decision: 'accept',
      });
    }
  });
  onCleanup(stop);
}
