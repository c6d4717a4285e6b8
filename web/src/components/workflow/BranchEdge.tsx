import { ActionIcon, Menu, Text } from '@mantine/core';
import { BaseEdge, EdgeLabelRenderer, getBezierPath, type EdgeProps } from '@xyflow/react';
import type { StepType } from '../../api/workflows';
import type { BranchEdge, InsertPoint } from './canvasTypes';
import { StepIcon } from './StepIcon';
import { useStepWords } from './useStepWords';
import { useTranslation } from 'react-i18next';

/**
 * An edge: its branch's label and an "Add step" ("+") that inserts a step on it, between the two
 * steps it joins (POST …/steps with `after`).
 */
export function BranchEdgeView({ id, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, label, markerEnd, data }: EdgeProps<BranchEdge>) {
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
/**
 * The "Add step" button ("+"): a menu of the addable types by category; choosing one inserts a
 * step of it at `at`. On every open branch, and (as a branch's edge) between connected steps.
 */
export function AddStepMenu({ at, palette, onAdd }: { at: InsertPoint; palette: StepType[]; onAdd: (at: InsertPoint, type: StepType) => void }) {
  const { t: tr } = useTranslation('workflows');
  const words = useStepWords();
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
            <Menu.Label>{words.category(c)}</Menu.Label>
            {palette
              .filter((t) => t.category === c)
              .map((t) => (
                <Menu.Item key={t.type} leftSection={<StepIcon name={t.icon} />} onClick={() => onAdd(at, t)}>
                  {words.title(t.type, t.title)}
                </Menu.Item>
              ))}
          </div>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
