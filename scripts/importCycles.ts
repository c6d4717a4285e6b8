/**
 * `npm run cycles`: prints the largest import cycle among the server folders, with its files.
 *
 * A cycle is a strongly connected component of the import graph: files that all reach each other
 * through imports, so none of them can be read, changed or tested without the others. Type imports
 * count (`import type`, `export type … from`): they are erased at run time, but they still tie the
 * files together for the reader and the compiler, and a cycle through types is how a value cycle
 * starts. test/unit/importCycles.test.ts fails when a cycle grows past MAX_CYCLE files.
 *
 * The edges come from the TypeScript compiler API, not a regex: `ts.preProcessFile` lists every
 * static import and re-export (type-only ones included) and every `import()`/`require()` with a
 * literal path, without parsing comments or strings as imports, and `ts.resolveModuleName` resolves
 * them with the repository's tsconfig (so `'.'`, `'..'` and folder `index.ts` files resolve the way
 * the compiler resolves them). Package imports resolve outside the folders and are left out.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** The folders whose files make the graph: the server's code (test/, scripts/, bench/ and web/ are clients of it). */
export const SERVER_FOLDERS = ['api', 'services', 'db', 'lib', 'activities', 'temporal', 'worker', 'inbound'] as const;

/** The largest cycle the unit test lets through. */
export const MAX_CYCLE = 4;

const root = path.resolve(__dirname, '..');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** Every server file (relative to the repository root) with the server files it imports. */
export function importGraph(base = root): Map<string, string[]> {
  const config = ts.readConfigFile(path.join(base, 'tsconfig.json'), ts.sys.readFile);
  const options = ts.parseJsonConfigFileContent(config.config, ts.sys, base).options;
  const files = SERVER_FOLDERS.flatMap((f) => (fs.existsSync(path.join(base, f)) ? sourceFiles(path.join(base, f)) : []));
  const inGraph = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = new Set<string>();
    for (const { fileName } of importedFiles) {
      const resolved = ts.resolveModuleName(fileName, file, options, ts.sys).resolvedModule?.resolvedFileName;
      if (resolved && inGraph.has(resolved) && resolved !== file) targets.add(path.relative(base, resolved));
    }
    graph.set(path.relative(base, file), [...targets].sort());
  }
  return graph;
}

/** The strongly connected components with more than one file, largest first (Tarjan's algorithm). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];

  // Iterative, so a deep import chain cannot overflow the call stack.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; next: number }> = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const to = edges[frame.next++];
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1) found.push(component.sort());
      }
    }
  }
  return found.sort((a, b) => b.length - a.length || a[0].localeCompare(b[0]));
}

if (require.main === module) {
  const all = cycles(importGraph());
  if (all.length === 0) {
    process.stdout.write('no import cycles among the server folders\n');
  } else {
    const [largest, ...rest] = all;
    process.stdout.write(`largest import cycle: ${largest.length} files\n${largest.map((f) => `  ${f}\n`).join('')}`);
    if (rest.length > 0) process.stdout.write(`other cycles: ${rest.map((c) => c.length).join(', ')} files\n`);
  }
  process.exitCode = all.length > 0 && all[0].length > MAX_CYCLE ? 1 : 0;
}
