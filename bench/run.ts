import { writeFileSync } from 'node:fs';
import { benchStore } from './store.bench.js';
import { benchRuntime } from './runtime.bench.js';
import { benchStreaming } from './streaming.bench.js';
import { benchCheckpoints } from './checkpoint.bench.js';
import { benchApi } from './api.bench.js';
import { machineDescription, type BenchSection } from './measure.js';

/**
 * `npm run bench`: runs every benchmark section, prints it and rewrites BENCHMARKS.md.
 * Every figure stands beside a baseline measured in the same run on the same machine.
 * `npm run bench -- store api` runs only the named sections and prints them (BENCHMARKS.md
 * is written only by a full run, so it never mixes runs).
 */
const all = {
  store: benchStore,
  runtime: benchRuntime,
  streaming: benchStreaming,
  checkpoints: benchCheckpoints,
  api: benchApi,
};
const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in all));
if (unknown.length) {
  console.error(`unknown bench section(s): ${unknown.join(', ')}; known: ${Object.keys(all).join(', ')}`);
  process.exit(2);
}
const sections: BenchSection[] = [];
for (const [name, run] of Object.entries(all)) {
  if (wanted.length && !wanted.includes(name)) continue;
  const section = await run();
  sections.push(section);
  console.log(`\n${section.title}`);
  for (const r of section.rows)
    console.log(`  ${r.metric}: ${r.value} (baseline ${r.baseline}; ${r.ratio}; target ${r.target}: ${r.verdict})`);
}

if (wanted.length) process.exit(0);

const lines = [
  '# Benchmarks',
  '',
  'Written by `npm run bench`; do not edit by hand. Numbers are from one run on the machine below; each sits beside a baseline measured in that same run.',
  '',
  `- Machine: ${machineDescription()}`,
  `- Date: ${new Date().toISOString()}`,
  '',
];
for (const s of sections) {
  lines.push(`## ${s.title}`, '', ...s.notes.map((n) => `- ${n}`), '');
  lines.push('| metric | value | baseline (same run) | ratio | target | verdict |', '|---|---|---|---|---|---|');
  for (const r of s.rows)
    lines.push(`| ${r.metric} | ${r.value} | ${r.baseline} | ${r.ratio} | ${r.target} | ${r.verdict} |`);
  lines.push('');
}
writeFileSync(new URL('../BENCHMARKS.md', import.meta.url), lines.join('\n'));
console.log('\nwrote BENCHMARKS.md');
process.exit(0);
