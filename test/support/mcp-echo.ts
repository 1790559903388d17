import { expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { McpServers } from '../../src/providers/mcp-servers.js';

/** The MCP echo server of the tests (test/fixtures/mcp/echo-server.mjs): one tool, `echo`. */
export const echoServers: McpServers = {
  echo: {
    command: process.execPath,
    args: [fileURLToPath(new URL('../fixtures/mcp/echo-server.mjs', import.meta.url))],
  },
};

/** A completed call of `echo` with `text`, as every provider's MCP tool node shows it. */
export const echoedCall = (text: string) => ({
  title: 'echo/echo',
  status: 'completed',
  detail: expect.objectContaining({
    tool: 'mcp',
    server: 'echo',
    name: 'echo',
    arguments: { text },
    result: expect.objectContaining({ content: [{ type: 'text', text: `echo: ${text}` }] }),
    error: null,
  }),
});
