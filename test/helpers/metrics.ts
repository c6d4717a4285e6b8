/** One sample line of the Prometheus text format: `name{labels} value`. */
export interface Sample {
  series: string;
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses a scrape (the real endpoint's text, not the registry's objects) into its samples. */
export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(LABEL)) labels[k] = v;
    out.push({ series: `${m[1]}{${m[2] ?? ''}}`, name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the one series of `name` whose labels include `labels`; 0 when there is none yet. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const hits = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (hits.length > 1) throw new Error(`${hits.length} series of ${name} match ${JSON.stringify(labels)}`);
  return hits[0]?.value ?? 0;
}
