import type { Edge, Node } from '@xyflow/react';
import type { Step, StepStats, StepType } from '../../api/workflows';

/** The shapes the workflow canvas (WorkflowCanvas) gives its nodes (StepNode) and edges (BranchEdge). */

export interface CanvasProblem {
  field: string;
  message: string;
}

/** Where a new step goes: on `branch` of `stepId` (what it led to then follows the new step). */
export interface InsertPoint {
  stepId: string;
  branch: string;
}

export type StepNodeData = {
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
export type StepNode = Node<StepNodeData, 'step'>;
export type BranchEdge = Edge<{ at: InsertPoint; palette: StepType[]; onAdd: (at: InsertPoint, type: StepType) => void }, 'branch'>;
