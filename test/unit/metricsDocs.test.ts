import fs from 'node:fs';
import path from 'node:path';
import { registry } from '../../lib/metrics';

const docs = path.join(__dirname, '..', '..', 'docs');
const read = (file: string) => fs.readFileSync(path.join(docs, file), 'utf8');
const ours = () =>
  registry
    .getMetricsAsArray()
    .map((m) => m.name)
    .filter((n) => n.startsWith('svc_'));
/** `svc_…` names a text mentions, with histogram sample suffixes taken back to the metric's name. */
const mentioned = (text: string) => new Set([...text.matchAll(/\bsvc_[a-z_]+/g)].map(([n]) => n.replace(/_(bucket|count|sum)$/, '')));

describe('docs/metrics.md, the alert rules and the Grafana dashboard', () => {
  it('list every metric this process defines', () => {
    const listed = mentioned(read('metrics.md'));
    for (const name of ours()) expect([...listed]).toContain(name);
  });

  it.each(['metrics.md', 'prometheus/alerts.yml', 'grafana-dashboard.json'])('%s names only metrics that exist', (file) => {
    const defined = new Set(ours());
    for (const name of mentioned(read(file))) expect([...defined]).toContain(name);
  });

  it('the dashboard is valid JSON whose panels all query Prometheus', () => {
    const dashboard = JSON.parse(read('grafana-dashboard.json'));
    const panels = dashboard.panels.filter((p: any) => p.type !== 'row');
    expect(panels.length).toBeGreaterThan(10);
    for (const p of panels) expect(p.targets.every((t: any) => typeof t.expr === 'string' && t.expr.length > 0)).toBe(true);
  });
});
