import { existsSync } from 'node:fs';

/**
 * util-linux's `setpriv`, which execs an agent with a parent-death signal. An agent whose
 * model request is still open outlives a SIGKILLed Baton by 20 s and more (measured), and
 * would finish its turn, tools included, with no one watching; with `--pdeathsig SIGKILL`
 * it dies with Baton. Where there is no `setpriv` the agent is spawned as it is.
 */
const SETPRIV = process.platform === 'linux' && existsSync('/usr/bin/setpriv') ? '/usr/bin/setpriv' : null;

/** The command line that runs `command` so that it dies with this process, where the platform allows it. */
export function diesWithParent(command: string, args: string[]): { command: string; args: string[] } {
  return SETPRIV ? { command: SETPRIV, args: ['--pdeathsig', 'SIGKILL', '--', command, ...args] } : { command, args };
}
