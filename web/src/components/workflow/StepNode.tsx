import { Group, Paper, Text } from '@mantine/core';
import { Handle, Position, type NodeProps } from '@xyflow/react';
import type { StepStats } from '../../api/workflows';
import { numberWords } from '../../api/dates';
import { AddStepMenu } from './BranchEdge';
import type { StepNode } from './canvasTypes';
import { StepIcon } from './StepIcon';
import { useStepWords } from './useStepWords';
import { useTranslation } from 'react-i18next';

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

/** A step on the canvas: its title, summary and numbers, its problems, a target handle and one source handle per branch ("+" on an open one). */
export function StepNodeView({ data, selected }: NodeProps<StepNode>) {
  const { t } = useTranslation('workflows');
  const words = useStepWords();
  const { step, problems, icon, internal, open, palette, onAdd, stats } = data;
  const name = words.stepName(step);
  const title = words.title(step.type, step.title);
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
        title={t('canvas.into', { name })}
        isConnectable={!internal}
        style={internal ? { visibility: 'hidden' } : undefined}
      />
      <Group gap={4} wrap="nowrap">
        <StepIcon name={icon} />
        <Text fw={600} size="sm" truncate>
          {title}
        </Text>
      </Group>
      <Text size="xs" data-summary lineClamp={2}>
        {step.summary}
      </Text>
      {name !== title ? (
        <Text size="10px" c="dimmed" truncate>
          {name}
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
                  {stats ? `${words.branch(b)} · ${fmt(stats.left[b] ?? 0)}` : words.branch(b)}
                </Text>
                <Handle
                  type="source"
                  id={b}
                  position={Position.Bottom}
                  style={{ left }}
                  title={t('canvas.branchOf', { branch: words.branch(b), name })}
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
