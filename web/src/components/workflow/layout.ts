import ELK from 'elkjs/lib/elk.bundled.js';
import type { Workflow } from '../../api/workflows';

/**
 * Lays the graph out top to bottom with elk's layered algorithm: nodes never overlap, branches
 * fan out below their step. Steps placed by hand keep their stored position (the canvas prefers
 * it); "Tidy up" clears those, so everything is laid out again.
 */
const elk = new ELK();
const NODE = { width: 240, height: 110 };

export async function layoutGraph(workflow: Workflow): Promise<Record<string, { x: number; y: number }>> {
  const graph = await elk.layout({
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.spacing.nodeNode': '50',
      'elk.layered.spacing.nodeNodeBetweenLayers': '70',
    },
    children: workflow.steps.map((s) => ({ id: s.id, ...NODE })),
    edges: workflow.transitions.map((t) => ({ id: t.id, sources: [t.fromStepId], targets: [t.toStepId] })),
  });
  const out: Record<string, { x: number; y: number }> = {};
  for (const n of graph.children ?? []) out[n.id] = { x: Math.round(n.x ?? 0), y: Math.round(n.y ?? 0) };
  return out;
}
