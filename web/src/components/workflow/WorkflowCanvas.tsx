import '@xyflow/react/dist/style.css';
import { ActionIcon, Group, Menu, Paper, Text } from '@mantine/core';
import {
  Background,
  BaseEdge,
  Controls,
  EdgeLabelRenderer,
  getBezierPath,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  useNodesState,
  type Connection,
  type Edge,
  type EdgeProps,
  type Node,
  type NodeProps,
  type ReactFlowInstance,
} from '@xyflow/react';
import { useEffect, useMemo, useRef } from 'react';
import type { Step, StepStats, StepType, Workflow } from '../../api/workflows';
import { StepIcon } from './StepIcon';
import { numberWords } from '../../api/dates';
import { useTranslation } from 'react-i18next';

/**
 * The workflow as a graph on @xyflow/react (this module is only imported by the editor's route
 * chunk, so the library never weighs on the first screen). A node per step, placed at its stored
 * `position`; one source handle per branch the step can take (its `branches`, fixed or derived from
 * its config by the server), labelled; one edge per transition, labelled with its branch.
 */

export interface CanvasProblem {
  field: string;
  message: string;
}

/** Where a new step goes: on `branch` of `stepId` (what it led to then follows the new step). */
export interface InsertPoint {
  stepId: string;
  branch: string;
}

type StepNodeData = {
  step: Step;
  problems: CanvasProblem[];
  icon?: string;
  internal: boolean;
  open: string[];
  palette: StepType[];
  onAdd: (at: InsertPoint, type: StepType) => void;
  /** The step's numbers (GET /workflows/:id/stats), when loaded. */
  stats?: StepStats;
};
type StepNode = Node<StepNodeData, 'step'>;
type BranchEdge = Edge<{ at: InsertPoint; palette: StepType[]; onAdd: (at: InsertPoint, type: StepType) => void }, 'branch'>;

const fmt = (n: number) => numberWords(n);

/** A node's numbers: entries, who waits there now, how many it ended; a Send email step's mail. */
function StepNumbers({ stats }: { stats: StepStats }) {
  const { t } = useTranslation('workflows');
  const parts = [t('canvas.entered', { n: fmt(stats.entered) }), t('canvas.waitingNow', { n: fmt(stats.waiting) })];
  if (stats.ended) parts.push(t('canvas.ended', { n: fmt(stats.ended) }));
  if (stats.failed) parts.push(t('canvas.failed', { n: fmt(stats.failed) }));
  if (stats.cancelled) parts.push(t('canvas.cancelled', { n: fmt(stats.cancelled) }));
  return (
    <div data-stats>
      <Text size="xs" c="dimmed" mt={4}>
        {parts.join(' · ')}
      </Text>
      {stats.emails ? (
        <Text size="xs" c="dimmed" data-email-stats>
          {t('canvas.emails', { sent: fmt(stats.emails.sent), opened: fmt(stats.emails.opened), clicked: fmt(stats.emails.clicked) })}
        </Text>
      ) : null}
    </div>
  );
}

/**
 * An edge: its branch's label and an "Add step" ("+") that inserts a step on it, between the two
 * steps it joins (POST …/steps with `after`).
 */
function BranchEdgeView({ id, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, label, markerEnd, data }: EdgeProps<BranchEdge>) {
  const [path, x, y] = getBezierPath({ sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition });
  return (
    <>
      <BaseEdge id={id} path={path} markerEnd={markerEnd} />
      <EdgeLabelRenderer>
        <div
          className="nodrag nopan"
          data-edge-id={id}
          style={{
            position: 'absolute',
            transform: `translate(-50%, -50%) translate(${x}px, ${y}px)`,
            pointerEvents: 'all',
            display: 'flex',
            alignItems: 'center',
            gap: 4,
          }}
        >
          <Text size="10px" c="dimmed" bg="var(--mantine-color-body)" px={2}>
            {label}
          </Text>
          {data ? <AddStepMenu at={data.at} palette={data.palette} onAdd={data.onAdd} /> : null}
        </div>
      </EdgeLabelRenderer>
    </>
  );
}
const edgeTypes = { branch: BranchEdgeView };

/**
 * The "Add step" button ("+"): a menu of the addable types by category; choosing one inserts a
 * step of it at `at`. On every open branch, and (as a branch's edge) between connected steps.
 */
export function AddStepMenu({ at, palette, onAdd }: { at: InsertPoint; palette: StepType[]; onAdd: (at: InsertPoint, type: StepType) => void }) {
  const { t: tr } = useTranslation('workflows');
  const categories = [...new Set(palette.map((t) => t.category))];
  return (
    <Menu withinPortal position="bottom" shadow="md">
      <Menu.Target>
        <ActionIcon size="sm" radius="xl" variant="light" aria-label={tr('canvas.addStep')} className="nodrag nopan" data-branch={at.branch}>
          +
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        {categories.map((c) => (
          <div key={c}>
            <Menu.Label>{c}</Menu.Label>
            {palette
              .filter((t) => t.category === c)
              .map((t) => (
                <Menu.Item key={t.type} leftSection={<StepIcon name={t.icon} />} onClick={() => onAdd(at, t)}>
                  {t.title}
                </Menu.Item>
              ))}
          </div>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}

/** Where a step without a stored position is drawn: a column, in the order steps were added. */
export const defaultPosition = (index: number) => ({ x: 260, y: 40 + index * 150 });

function StepNodeView({ data, selected }: NodeProps<StepNode>) {
  const { t } = useTranslation('workflows');
  const { step, problems, icon, internal, open, palette, onAdd, stats } = data;
  const branches = step.branches;
  const bad = problems.length > 0;
  return (
    <Paper
      withBorder
      shadow={selected ? 'md' : 'xs'}
      p="xs"
      w={220}
      data-step-id={step.id}
      data-invalid={bad ? 'yes' : undefined}
      style={{ borderColor: bad ? 'var(--mantine-color-red-6)' : selected ? 'var(--mantine-color-blue-6)' : undefined, borderWidth: bad || selected ? 2 : 1 }}
    >
      <Handle
        type="target"
        position={Position.Top}
        title={t('canvas.into', { name: step.name })}
        isConnectable={!internal}
        style={internal ? { visibility: 'hidden' } : undefined}
      />
      <Group gap={4} wrap="nowrap">
        <StepIcon name={icon} />
        <Text fw={600} size="sm" truncate>
          {step.title}
        </Text>
      </Group>
      <Text size="xs" data-summary lineClamp={2}>
        {step.summary}
      </Text>
      {step.name !== step.title ? (
        <Text size="10px" c="dimmed" truncate>
          {step.name}
        </Text>
      ) : null}
      {stats ? <StepNumbers stats={stats} /> : null}
      {problems.map((p) => (
        <Text key={p.field + p.message} size="xs" c="red" mt={4} role="note">
          {p.message}
        </Text>
      ))}
      {branches.length ? (
        <div style={{ position: 'relative', height: 16, marginTop: 6 }}>
          {branches.map((b, i) => {
            const left = `${((i + 1) / (branches.length + 1)) * 100}%`;
            return (
              <div key={b}>
                <Text
                  size="10px"
                  c="dimmed"
                  style={{ position: 'absolute', left, transform: 'translateX(-50%)', top: 0, whiteSpace: 'nowrap' }}
                  data-branch-count={b}
                >
                  {stats ? `${b} · ${fmt(stats.left[b] ?? 0)}` : b}
                </Text>
                <Handle
                  type="source"
                  id={b}
                  position={Position.Bottom}
                  style={{ left }}
                  title={t('canvas.branchOf', { branch: b, name: step.name })}
                  data-branch={b}
                />
                {open.includes(b) ? (
                  <div style={{ position: 'absolute', left, top: 26, transform: 'translateX(-50%)' }}>
                    <AddStepMenu at={{ stepId: step.id, branch: b }} palette={palette} onAdd={onAdd} />
                  </div>
                ) : null}
              </div>
            );
          })}
        </div>
      ) : (
        <Text size="10px" c="dimmed" mt={4}>
          {t('canvas.endsExecution')}
        </Text>
      )}
    </Paper>
  );
}

const nodeTypes = { step: StepNodeView };

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
        ariaLabel: `${step.name} (${step.title})`,
        deletable: !internal,
        selected: step.id === selectedId,
      };
    });
  }, [workflow, problems, selectedId, types, onAdd, layout, stats]);
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
    const palette = types.filter((t) => !t.internal);
    return workflow.transitions.map((t) => ({
      id: t.id,
      type: 'branch',
      source: t.fromStepId,
      target: t.toStepId,
      sourceHandle: t.branch,
      label: t.branch,
      ariaLabel: tr('canvas.edge', {
        branch: t.branch,
        from: workflow.steps.find((s) => s.id === t.fromStepId)?.name,
        to: workflow.steps.find((s) => s.id === t.toStepId)?.name,
      }),
      markerEnd: { type: MarkerType.ArrowClosed },
      data: { at: { stepId: t.fromStepId, branch: t.branch }, palette, onAdd },
    }));
  }, [workflow, types, onAdd, tr]);

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
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
