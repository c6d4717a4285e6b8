import { Alert, Anchor, Badge, Button, Group, Paper, Stack, Text, Timeline, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useExecution } from '../../api/hooks/workflows';
import { useAppConfig } from '../../api/session';
import { ACTIVE_STATUSES, STATUS_COLORS, temporalExecutionUrl, type Workflow } from '../../api/workflows';
import { ErrorState, Loading } from '../States';
import { statusWords, stepStory, waitWords } from './stepStory';
import { RawOutput } from './RawOutput';
import { useStepWords } from './useStepWords';
import { momentWords } from '../../api/dates';
import { useTranslation } from 'react-i18next';

export function ExecutionTimeline({
  projectId,
  workflow,
  executionId,
  onClose,
  onCancelled,
}: {
  projectId: string;
  workflow: Workflow;
  executionId: string;
  onClose: () => void;
  onCancelled: () => void;
}) {
  const { t } = useTranslation(['workflows', 'common']);
  const config = useAppConfig();
  const params = { params: { path: { id: workflow.id, executionId } } };
  const detail = useExecution(projectId, workflow.id, executionId);
  const cancel = useMutation({
    meta: { success: t('timeline.cancelledToast') },
    mutationFn: () => unwrap(api.DELETE('/workflows/{id}/executions/{executionId}', params)),
    onSuccess: onCancelled,
  });
  const e = detail.data;
  const temporal = config.data?.temporal;
  const words = useStepWords();
  const stepName = (id: string) => {
    const step = workflow.steps.find((s) => s.id === id);
    return step ? words.stepName(step) : id;
  };
  const typeTitle = (type: string) => words.title(type, workflow.steps.find((s) => s.type === type)?.title ?? type);
  return (
    <Paper withBorder p="md" component="section" aria-label={t('timeline.label')}>
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          {t('timeline.heading')}
        </Title>
        <Button size="xs" variant="default" onClick={onClose}>
          {t('common:close')}
        </Button>
      </Group>
      {detail.isPending ? <Loading /> : null}
      {detail.error ? <ErrorState error={detail.error} /> : null}
      {e ? (
        <Stack gap="sm">
          <Group gap="xs">
            <Badge color={STATUS_COLORS[e.status]}>{statusWords(e.status)}</Badge>
            {e.contactEmail ? <Text size="sm">{e.contactEmail}</Text> : null}
            {e.status === 'WAITING' && waitWords(e) ? <Text size="sm">{waitWords(e)}</Text> : null}
          </Group>
          {e.error ? (
            <Alert color="red" title={t('timeline.failed')}>
              {e.error}
            </Alert>
          ) : null}
          <Group gap="sm">
            {temporal ? (
              <Anchor href={temporalExecutionUrl(temporal.uiUrl, temporal.namespace, e.id)} target="_blank" rel="noreferrer" size="sm">
                {t('timeline.openInTemporal')}
              </Anchor>
            ) : null}
            {ACTIVE_STATUSES.has(e.status) ? (
              <Button size="xs" color="red" variant="light" onClick={() => cancel.mutate()} loading={cancel.isPending}>
                {t('timeline.cancel')}
              </Button>
            ) : null}
          </Group>
          {cancel.error ? <ErrorState error={cancel.error} /> : null}
          <Timeline active={e.steps.length - 1} bulletSize={18} lineWidth={2}>
            {e.steps.map((s, i) => (
              <Timeline.Item
                // biome-ignore lint/suspicious/noArrayIndexKey: a step may run more than once (loops); its place in the history is its identity
                key={i}
                color={STATUS_COLORS[s.status]}
                title={
                  <Group gap="xs">
                    <Text fw={600} size="sm">
                      {stepName(s.stepId)}
                    </Text>
                    <Badge size="xs" variant="light" color={STATUS_COLORS[s.status]}>
                      {statusWords(s.status)}
                    </Badge>
                  </Group>
                }
              >
                <Text size="sm" data-story>
                  {stepStory(s)}
                </Text>
                <Text size="xs" c="dimmed">
                  {typeTitle(s.type)} · {momentWords(s.startedAt, { seconds: true })}
                  {s.finishedAt ? ` → ${momentWords(s.finishedAt, { seconds: true })}` : ''}
                </Text>
                {s.output !== null && s.output !== undefined ? <RawOutput name={stepName(s.stepId)} output={s.output} /> : null}
              </Timeline.Item>
            ))}
          </Timeline>
        </Stack>
      ) : null}
    </Paper>
  );
}
