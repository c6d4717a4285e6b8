import '@xyflow/react/dist/style.css';
import {
  Background,
  Controls,
  MarkerType,
  Panel,
  ReactFlow,
  useNodesState,
  type AriaLabelConfig,
  type Connection,
  type ReactFlowInstance,
} from '@xyflow/react';
import { useEffect, useMemo, useRef } from 'react';
import type { StepStats, StepType, Workflow } from '../../api/workflows';
import { BranchEdgeView } from './BranchEdge';
import type { BranchEdge, CanvasProblem, InsertPoint, StepNode } from './canvasTypes';
import { StepNodeView } from './StepNode';
import { useStepWords } from './useStepWords';
import { useTranslation } from 'react-i18next';

/**
 * The workflow as a graph on @xyflow/react (this module is only imported by the editor's route
 * chunk, so the library never weighs on the first screen). A node per step, placed at its stored
 * `position`; one source handle per branch the step can take (its `branches`, fixed or derived from
 * its config by the server), labelled; one edge per transition, labelled with its branch.
 */

const edgeTypes = { branch: BranchEdgeView };
const nodeTypes = { step: StepNodeView };

/** The library's name and page, for the attribution the canvas carries (a name, the same in every language). */
const REACT_FLOW = 'React Flow';
const REACT_FLOW_URL = 'https://reactflow.dev';
const DIRECTIONS = new Set(['up', 'down', 'left', 'right']);

/** Where a step without a stored position is drawn: a column, in the order steps were added. */
export const defaultPosition = (index: number) => ({ x: 260, y: 40 + index * 150 });

export function WorkflowCanvas({
  workflow,
  problems,
  selectedId,
  onSelect,
  onMove,
  onConnect,
  onDisconnect,
  onDeleteStep,
  types,
  onAdd,
  layout,
  stats,
}: {
  workflow: Workflow;
  /** Per-step numbers by step id (GET /workflows/:id/stats); absent while loading. */
  stats?: Record<string, StepStats>;
  /** Every step type (GET /workflows/step-types): icons, and the addable ones for "Add step". */
  types: StepType[];
  onAdd: (at: InsertPoint, type: StepType) => void;
  /** Positions laid out by elk (layout.ts) for steps without a stored one. */
  layout: Record<string, { x: number; y: number }>;
  problems: Record<string, CanvasProblem[]>;
  selectedId: string | null;
  onSelect: (stepId: string | null) => void;
  onMove: (stepId: string, position: { x: number; y: number }) => void;
  onConnect: (from: string, to: string, branch: string) => void;
  onDisconnect: (transitionIds: string[]) => void;
  onDeleteStep: (stepId: string) => void;
}) {
  const { t: tr } = useTranslation('workflows');
  const { t: ts } = useTranslation('steps');
  const words = useStepWords();
  const derived = useMemo<StepNode[]>(() => {
    const palette = types.filter((t) => !t.internal);
    return workflow.steps.map((step, i) => {
      const type = types.find((t) => t.type === step.type);
      const internal = type?.internal ?? false;
      const open = step.branches.filter((b) => !workflow.transitions.some((t) => t.fromStepId === step.id && t.branch === b));
      return {
        id: step.id,
        type: 'step',
        position: step.position ?? layout[step.id] ?? defaultPosition(i),
        data: { step, problems: problems[step.id] ?? [], icon: type?.icon, internal, open, palette, onAdd, stats: stats?.[step.id] },
        ariaLabel: `${words.stepName(step)} (${words.title(step.type, step.title)})`,
        deletable: !internal,
        selected: step.id === selectedId,
      };
    });
  }, [workflow, problems, selectedId, types, onAdd, layout, stats, words]);
  // The library's own controls and screen-reader texts, in the person's language.
  const ariaLabelConfig = useMemo<Partial<AriaLabelConfig>>(
    () => ({
      'node.a11yDescription.default': ts('flow.nodeHelp'),
      'node.a11yDescription.keyboardDisabled': ts('flow.nodeHelpKeyboard'),
      'node.a11yDescription.ariaLiveMessage': ({ direction, x, y }) =>
        ts('flow.moved', { direction: DIRECTIONS.has(direction) ? ts(`flow.direction.${direction as 'up'}`) : direction, x, y }),
      'edge.a11yDescription.default': ts('flow.edgeHelp'),
      'controls.ariaLabel': ts('flow.controls'),
      'controls.zoomIn.ariaLabel': ts('flow.zoomIn'),
      'controls.zoomOut.ariaLabel': ts('flow.zoomOut'),
      'controls.fitView.ariaLabel': ts('flow.fitView'),
      'controls.interactive.ariaLabel': ts('flow.interactive'),
      'minimap.ariaLabel': ts('flow.minimap'),
      'handle.ariaLabel': ts('flow.handle'),
    }),
    [ts],
  );
  // Local node state so a drag moves the node at once; the server's graph replaces it when it changes.
  const [nodes, setNodes, onNodesChange] = useNodesState<StepNode>(derived);
  useEffect(() => setNodes(derived), [derived, setNodes]);
  // A step added or removed: show the whole graph again (a new step is placed below the others).
  const flow = useRef<ReactFlowInstance<StepNode, BranchEdge> | null>(null);
  const count = workflow.steps.length;
  useEffect(() => {
    if (count) requestAnimationFrame(() => flow.current?.fitView({ maxZoom: 1, duration: 150 }));
  }, [count]);

  const edges = useMemo<BranchEdge[]>(() => {
    const nameOf = (id: string) => {
      const step = workflow.steps.find((s) => s.id === id);
      return step ? words.stepName(step) : undefined;
    };
    const palette = types.filter((t) => !t.internal);
    return workflow.transitions.map((t) => ({
      id: t.id,
      type: 'branch',
      source: t.fromStepId,
      target: t.toStepId,
      sourceHandle: t.branch,
      label: words.branch(t.branch),
      ariaLabel: tr('canvas.edge', {
        branch: words.branch(t.branch),
        from: nameOf(t.fromStepId),
        to: nameOf(t.toStepId),
      }),
      markerEnd: { type: MarkerType.ArrowClosed },
      data: { at: { stepId: t.fromStepId, branch: t.branch }, palette, onAdd },
    }));
  }, [workflow, types, onAdd, tr, words]);

  return (
    <div style={{ height: 600 }}>
      <ReactFlow<StepNode, BranchEdge>
        aria-label={tr('canvas.graph')}
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        onNodesChange={onNodesChange}
        onInit={(instance) => {
          flow.current = instance;
        }}
        onNodeClick={(_, n) => onSelect(n.id)}
        onPaneClick={() => onSelect(null)}
        onNodeDragStop={(_, n) => onMove(n.id, { x: Math.round(n.position.x), y: Math.round(n.position.y) })}
        onConnect={(c: Connection) => c.source && c.target && onConnect(c.source, c.target, c.sourceHandle ?? 'next')}
        onEdgesDelete={(gone) => onDisconnect(gone.map((e) => e.id))}
        onNodesDelete={(gone) => {
          for (const n of gone) onDeleteStep(n.id);
        }}
        deleteKeyCode={['Backspace', 'Delete']}
        fitView
        fitViewOptions={{ maxZoom: 1 }}
        ariaLabelConfig={ariaLabelConfig}
        // The library's attribution names itself in English only: the canvas draws the same link
        // below, named in the person's language.
        proOptions={{ hideAttribution: true }}
      >
        <Background />
        <Controls showInteractive={false} />
        <Panel position="bottom-right" className="react-flow__attribution">
          <a href={REACT_FLOW_URL} target="_blank" rel="noopener noreferrer" aria-label={ts('flow.attribution')}>
            {REACT_FLOW}
          </a>
        </Panel>
      </ReactFlow>
    </div>
  );
}
