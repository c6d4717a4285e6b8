import { useState } from 'react';
import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useNavigate } from 'react-router';
import { useComputeSegment, useDeleteSegment, useRefreshSegment } from '../../api/hooks/segments';
import { ErrorState } from '../States';
import type { Segment } from './SegmentMembers';
import { numberWords } from '../../api/dates';
import { useTranslation } from 'react-i18next';

/** Compute (tracked segments: entry/exit events) and Refresh (recount only), each with what it answered. */
export function Recount({ projectId, segment }: { projectId: string; segment: Segment }) {
  const { t } = useTranslation('data');
  const [result, setResult] = useState<string | null>(null);
  const compute = useComputeSegment(projectId, segment.id, {
    // 200 with the counts, or 202 while it still runs.
    onSuccess: (r) =>
      setResult(
        'running' in r
          ? t('segment.stillComputing', { workflowId: r.workflowId })
          : t('segment.computed', { count: r.memberCount, n: numberWords(r.memberCount), entered: numberWords(r.entered), exited: numberWords(r.exited) }),
      ),
  });
  const refresh = useRefreshSegment(projectId, segment.id, {
    meta: { success: t('segment.refreshedToast') },
    onSuccess: (r) => setResult(t('segment.refreshed', { count: r.memberCount, n: numberWords(r.memberCount) })),
  });
  const error = compute.error ?? refresh.error;
  return (
    <Stack gap="xs">
      <Group>
        <Button
          variant="default"
          onClick={() => {
            setResult(null);
            compute.mutate();
          }}
          loading={compute.isPending}
          title={segment.trackMembership ? t('segment.computeHint') : t('segment.computeUntracked')}
        >
          {t('segment.compute')}
        </Button>
        <Button
          variant="default"
          onClick={() => {
            setResult(null);
            refresh.mutate();
          }}
          loading={refresh.isPending}
        >
          {t('segment.refresh')}
        </Button>
        <Text size="sm" c="dimmed">
          {t('segment.cachedCount')} <b data-testid="cached-count">{numberWords(segment.memberCount)}</b>
        </Text>
      </Group>
      {result ? (
        <Alert color="blue" role="status" p="xs" data-testid="recount-result">
          {result}
        </Alert>
      ) : null}
      {error ? <ErrorState error={error} /> : null}
    </Stack>
  );
}

export function DeleteSegment({ projectId, segment }: { projectId: string; segment: Segment }) {
  const { t } = useTranslation('data');
  const navigate = useNavigate();
  const [asking, setAsking] = useState(false);
  const remove = useDeleteSegment(projectId, segment.id, {
    meta: { success: t('segment.deletedToast') },
    onSuccess: () => void navigate(`/p/${projectId}/segments`),
  });
  return (
    <>
      <Button color="red" variant="light" onClick={() => setAsking(true)}>
        {t('segment.delete')}
      </Button>
      <Modal opened={asking} onClose={() => setAsking(false)} title={t('segment.deleteTitle')}>
        <Stack>
          <Text>{t('segment.deleteBody', { name: segment.name })}</Text>
          {remove.error ? <ErrorState error={remove.error} title={t('segment.notDeleted')} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setAsking(false)}>
              {t('segment.cancel')}
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
              {t('segment.deleteSegment')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
