/**
 * Finds import cycles among the TypeScript files under `src/`: every relative `import` and
 * `export ... from` counts, type-only ones included (a type cycle still ties two files'
 * meanings together). Prints each cycle once and exits 1 if there is any.
 *
 *   npx tsx scripts/check-import-cycles.ts [dir]
 */
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(process.argv[2] ?? 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `import ... from './x.js'`, `import './x.js'`, `export ... from './x.js'`, `import('./x.js')`: the relative specifiers. */
const specifierPattern =
  /(?:^|[\s;}])(?:import|export)\s+(?:type\s+)?(?:[^;'"]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** Comments are dropped first, so an example in a doc comment is not an import. */
const withoutComments = (text: string): string =>
  text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** The file a relative specifier names: NodeNext writes `.js` for a `.ts` source. */
function resolveSpecifier(from: string, specifier: string): string | null {
  const base = resolve(dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((c) => c.endsWith('.ts') && existsSync(c) && statSync(c).isFile()) ?? null;
}

function importsOf(file: string): string[] {
  const text = withoutComments(readFileSync(file, 'utf8'));
  const targets = new Set<string>();
  for (const match of text.matchAll(specifierPattern)) {
    const target = resolveSpecifier(file, (match[1] ?? match[2])!);
    if (target && target.startsWith(root)) targets.add(target);
  }
  return [...targets];
}

/** Tarjan's strongly connected components; a component of two or more files (or a self-import) holds cycles. */
function stronglyConnected(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component);
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return components;
}

/** One shortest cycle through `start` inside its component, as a readable path. */
function cycleThrough(start: string, members: Set<string>, graph: Map<string, string[]>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start];
}

const graph = new Map(sourceFiles(root).map((file) => [file, importsOf(file)]));
const components = stronglyConnected(graph);
const name = (file: string) => relative(process.cwd(), file);
let cycles = 0;
for (const component of components) {
  const members = new Set(component);
  console.log(`cycle among ${component.length} file(s): ${[...component].sort().map(name).join(', ')}`);
  // The shortest cycle through each member, each printed once: together they show every file's part.
  const seen = new Set<string>();
  for (const file of [...component].sort()) {
    const cycle = cycleThrough(file, members, graph);
    const key = [...cycle.slice(1)].sort().join('|');
    if (seen.has(key)) continue;
    seen.add(key);
    cycles += 1;
    console.log(`  ${cycle.map(name).join(' -> ')}`);
  }
}
if (components.length) {
  console.log(`${cycles} import cycle(s) in ${components.length} group(s) of files under ${name(root) || '.'}`);
  process.exit(1);
}
console.log(`no import cycles under ${name(root) || '.'} (${graph.size} files)`);
