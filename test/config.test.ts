import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { BatonError } from '../src/domain/errors.js';

/** `BATON_ACP_AGENTS` (issue 14): the ACP agents a Baton can run besides its built-in ones, checked at start-up. */
const load = (value: string | undefined) => loadConfig(value === undefined ? {} : { BATON_ACP_AGENTS: value });

function startUpError(value: string): BatonError {
  try {
    load(value);
  } catch (e) {
    if (e instanceof BatonError) return e;
    throw e;
  }
  throw new Error(`BATON_ACP_AGENTS=${value} was accepted`);
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
