import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { BatonError } from '../src/domain/errors.js';

/** `BATON_ACP_AGENTS` (issue 14): the ACP agents a Baton can run besides its built-in ones, checked at start-up. */
const load = (value: string | undefined) => loadConfig(value === undefined ? {} : { BATON_ACP_AGENTS: value });

function startUpError(value: string, variable = 'BATON_ACP_AGENTS'): BatonError {
  try {
    loadConfig({ [variable]: value });
  } catch (e) {
    if (e instanceof BatonError) return e;
    throw e;
  }
  throw new Error(`${variable}=${value} was accepted`);
}

describe('BATON_ACP_AGENTS', () => {
  it('unset: no agents of its own (the built-ins are the ACP provider’s)', () => {
    expect(load(undefined).acpAgents).toEqual({});
    expect(load('').acpAgents).toEqual({});
  });

  it('a JSON object of name -> launch spec; args and env default to empty', () => {
    const config = load(
      JSON.stringify({
        mine: { command: '/usr/local/bin/my-agent', args: ['--acp'], env: { MY_AGENT_HOME: '/tmp/home' } },
        'other.agent_2': { command: 'npx' },
      }),
    );
    expect(config.acpAgents).toEqual({
      mine: { command: '/usr/local/bin/my-agent', args: ['--acp'], env: { MY_AGENT_HOME: '/tmp/home' } },
      'other.agent_2': { command: 'npx', args: [], env: {} },
    });
  });

  it('an object given as an override (a CLI flag, a test) is taken as it is', () => {
    const config = loadConfig({}, { acpAgents: { mine: { command: 'my-agent' } } });
    expect(config.acpAgents).toEqual({ mine: { command: 'my-agent', args: [], env: {} } });
  });

  it('JSON that does not parse is one clear start-up error naming the variable', () => {
    const error = startUpError('{mine: nope');
    expect(error.code).toBe('invalid_payload');
    expect(error.message).toMatch(/acpAgents/);
    expect(error.message).toMatch(/JSON/);
  });

  it.each([
    ['not an object', '["mine"]'],
    ['a spec without a command', '{"mine":{"args":[]}}'],
    ['an empty command', '{"mine":{"command":""}}'],
    ['args that are not strings', '{"mine":{"command":"a","args":[1]}}'],
    ['env values that are not strings', '{"mine":{"command":"a","env":{"X":1}}}'],
    ['an unknown field in a spec', '{"mine":{"command":"a","cwd":"/tmp"}}'],
    ['a name with a space', '{"my agent":{"command":"a"}}'],
    ['an empty name', '{"":{"command":"a"}}'],
  ])('the wrong shape is refused at start-up: %s', (_why, value) => {
    const error = startUpError(value);
    expect(error.code).toBe('invalid_payload');
    expect(error.message).toMatch(/acpAgents/);
  });
});

/** `BATON_MCP_SERVERS`: the user's MCP servers, given to every agent (Codex, Claude, ACP). */
describe('BATON_MCP_SERVERS', () => {
  const mcp = (value: string) => loadConfig({ BATON_MCP_SERVERS: value }).mcpServers;

  it('unset: none', () => {
    expect(loadConfig({}).mcpServers).toEqual({});
    expect(mcp('')).toEqual({});
  });

  it('a JSON object of name -> stdio server; args and env default to empty', () => {
    expect(
      mcp(
        JSON.stringify({
          echo: { command: '/usr/bin/node', args: ['echo.mjs'] },
          'db-2_x': { command: 'db', env: { DB_URL: 'x' } },
        }),
      ),
    ).toEqual({
      echo: { command: '/usr/bin/node', args: ['echo.mjs'], env: {} },
      'db-2_x': { command: 'db', args: [], env: { DB_URL: 'x' } },
    });
  });

  it.each([
    ['JSON that does not parse', '{echo', /JSON/],
    ['a server without a command', '{"echo":{"args":[]}}', /command/],
    ['an unknown field (a url: only stdio servers)', '{"echo":{"command":"a","url":"http://127.0.0.1:1/mcp"}}', /url/],
    ['the name baton, which is Baton’s own server', '{"baton":{"command":"a"}}', /baton/],
    ['a name with a dot (not a TOML bare key for Codex)', '{"my.server":{"command":"a"}}', /name/],
    ['a name with a double underscore (Claude splits mcp__NAME__TOOL at it)', '{"my__server":{"command":"a"}}', /name/],
    ['an environment name that is not one', '{"echo":{"command":"a","env":{"A-B":"x"}}}', /environment/],
  ])('the wrong shape is refused at start-up: %s', (_why, value, says) => {
    const error = startUpError(value, 'BATON_MCP_SERVERS');
    expect(error.code).toBe('invalid_payload');
    expect(error.message).toMatch(/mcpServers/);
    expect(error.message).toMatch(says);
  });
});
