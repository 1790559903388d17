import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { Graphviz } from '@hpcc-js/wasm-graphviz';
import { allMachines } from '../src/machines/index.js';
import { toDot, toJson, toMermaid, unlabelledTransitions } from './statechart-export.js';

/**
 * `npm run statecharts` writes, per machine, a Mermaid diagram (collected in
 * statecharts/README.md), an SVG rendered offline from DOT, and the machine's JSON.
 * `npm run statecharts:check` fails when any of them differs from what the machines give.
 */
const check = process.argv.includes('--check');
const dir = new URL('../statecharts/', import.meta.url);
mkdirSync(dir, { recursive: true });
const graphviz = await Graphviz.load();

const files = new Map<string, string>();
const readme = [
  '# Statecharts',
  '',
  'Generated from `src/machines/` by `npm run statecharts`; do not edit. `npm run statecharts:check` (run in CI) fails when these are stale.',
  'Each machine also has an SVG (rendered offline with Graphviz) and its JSON definition beside this file: xstate\'s `toJSON()` with each state\'s eventless (`always`) transitions and every composite guard (`{ "type": "xstate.and", "guards": [...] }`) written in, which it leaves out.',
  '',
];
for (const { name, machine, version, summary } of allMachines) {
  const mermaid = toMermaid(machine);
  files.set(`${name}.mmd`, mermaid);
  files.set(`${name}.svg`, graphviz.dot(toDot(machine)));
  files.set(`${name}.json`, `${JSON.stringify(toJson(machine), null, 2)}\n`);
  readme.push(
    `## ${name} (v${version})`,
    '',
    summary,
    '',
    `![${name}](./${name}.svg)`,
    '',
    '```mermaid',
    mermaid.trimEnd(),
    '```',
    '',
  );
}
files.set('README.md', readme.join('\n'));

// Every transition must read in the charts: a named action or target, a named guard.
const unlabelled = allMachines.flatMap(({ machine }) => unlabelledTransitions(machine));
if (unlabelled.length) {
  console.error(
    `transitions without a label (name their actions and guards in setup()):\n  ${unlabelled.join('\n  ')}`,
  );
  process.exit(1);
}

const stale: string[] = [];
for (const [file, content] of files) {
  const url = new URL(file, dir);
  if (check) {
    if (!existsSync(url) || readFileSync(url, 'utf8') !== content) stale.push(file);
  } else {
    writeFileSync(url, content);
  }
}
if (check && stale.length) {
  console.error(`statecharts are stale (run npm run statecharts): ${stale.join(', ')}`);
  process.exit(1);
}
console.log(check ? `statecharts up to date (${files.size} files)` : `wrote ${files.size} files to statecharts/`);
