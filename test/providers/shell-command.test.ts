import { describe, expect, it } from 'vitest';
import { scriptOf, shellWords, userCommandOf } from '../../src/providers/shell-command.js';

/** The command told for a line an agent ran through a login shell (Codex's `/bin/bash -lc '...'`). */
describe('shell commands', () => {
  it('split a line as a POSIX shell quotes it', () => {
    expect(shellWords(`/bin/bash -lc 'echo a; echo b'`)).toEqual(['/bin/bash', '-lc', 'echo a; echo b']);
    // Codex quotes a script with single quotes in it with double quotes and backslashes.
    expect(shellWords(`/bin/bash -lc "printf 'x\\\\n' > f.txt && echo \\"\\$HOME\\""`)).toEqual([
      '/bin/bash',
      '-lc',
      `printf 'x\\n' > f.txt && echo "$HOME"`,
    ]);
    expect(shellWords(`a\\ b 'c'"d"`)).toEqual(['a b', 'cd']);
    expect(shellWords(`echo 'unclosed`)).toBeNull();
    expect(shellWords(`echo "unclosed`)).toBeNull();
  });

  it('tell the script of a shell running one, and any other line as it is', () => {
    expect(scriptOf(['bash', '-lc', 'ls'])).toBe('ls');
    expect(scriptOf(['/usr/bin/zsh', '-c', 'ls'])).toBe('ls');
    expect(scriptOf(['python3', '-c', 'print(1)'])).toBeNull();
    expect(scriptOf(['bash', 'script.sh'])).toBeNull();
    expect(userCommandOf(`/bin/bash -lc 'echo approved > proof.txt'`)).toBe('echo approved > proof.txt');
    expect(userCommandOf(['/bin/bash', '-lc', 'ls -la'])).toBe('ls -la');
    expect(userCommandOf('ls -la | grep x')).toBe('ls -la | grep x');
    expect(userCommandOf(`bash -lc 'unclosed`)).toBe(`bash -lc 'unclosed`);
  });
});
