/**
 * The command a user would recognise in the line an agent ran it with. Codex (and codex-acp)
 * run each command through a login shell, `/bin/bash -lc '<script>'`; the script is what
 * the model wrote and what Claude and the other agents report, so that is what Baton tells.
 */

const SHELLS = /(^|\/)(ba|z|da|k)?sh$/;
const SCRIPT_FLAGS = new Set(['-c', '-lc', '-cl']);

/** The script of `[shell, -lc, script]`, if the words are a shell running one. */
export function scriptOf(argv: readonly string[]): string | null {
  if (argv.length !== 3) return null;
  const [shell, flag, script] = argv as [string, string, string];
  return SHELLS.test(shell) && SCRIPT_FLAGS.has(flag) ? script : null;
}

/** A command line split into words as a POSIX shell quotes them; null when it is not one it can split. */
export function shellWords(line: string): string[] | null {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === ' ' || c === '\t' || c === '\n') {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return null;
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let text = '';
      for (i++; i < line.length && line[i] !== '"'; i++) {
        // Inside double quotes a backslash escapes only these; before anything else it stays.
        if (line[i] === '\\' && i + 1 < line.length && '\\"$`\n'.includes(line[i + 1]!)) i++;
        text += line[i];
      }
      if (i >= line.length) return null;
      word = (word ?? '') + text;
    } else if (c === '\\') {
      if (i + 1 >= line.length) return null;
      word = (word ?? '') + line[++i];
    } else word = (word ?? '') + c;
  }
  if (word !== null) words.push(word);
  return words;
}

/** The script a login-shell line runs, else the line as it is. */
export function userCommandOf(line: string | readonly string[]): string {
  const argv = typeof line === 'string' ? shellWords(line) : line;
  const script = argv ? scriptOf(argv) : null;
  if (script !== null) return script;
  return typeof line === 'string' ? line : line.join(' ');
}
