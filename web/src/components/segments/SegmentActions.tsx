import { useState } from 'react';
import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { ErrorState } from '../States';
import type { Segment } from './SegmentMembers';
import { numberWords } from '../../api/dates';
import { useTranslation } from 'react-i18next';

/** Compute (tracked segments: entry/exit events) and Refresh (recount only), each with what it answered. */
export function Recount({ projectId, segment }: { projectId: string; segment: Segment }) {
  const { t } = useTranslation('data');
  const qc = useQueryClient();
  const [result, setResult] = useState<string | null>(null);
  const path = { params: { path: { id: segment.id } } };
  // Not awaited: the button is done when the answer is shown; the count and members follow.
  const after = (sentence: string) => {
    setResult(sentence);
    void qc.invalidateQueries({ queryKey: keys.segments.one(projectId, segment.id) });
    void qc.invalidateQueries({ queryKey: keys.segments.all(projectId) });
    void qc.invalidateQueries({ queryKey: keys.segments.members(projectId, segment.id) });
  };
  const compute = useMutation({
    // 200 with the counts, or 202 while it still runs: both are in the route's responses.
    mutationFn: () => unwrap(api.POST('/segments/{id}/compute', path)),
    onSuccess: (r) =>
      after(
        'running' in r
          ? t('segment.stillComputing', { workflowId: r.workflowId })
          : t('segment.computed', { count: r.memberCount, n: numberWords(r.memberCount), entered: numberWords(r.entered), exited: numberWords(r.exited) }),
      ),
  });
  const refresh = useMutation({
    meta: { success: t('segment.refreshedToast') },
    mutationFn: () => unwrap(api.POST('/segments/{id}/refresh', path)),
    onSuccess: (r) => after(t('segment.refreshed', { count: r.memberCount, n: numberWords(r.memberCount) })),
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
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [asking, setAsking] = useState(false);
  const remove = useMutation({
    meta: { success: t('segment.deletedToast') },
    mutationFn: () => unwrap(api.DELETE('/segments/{id}', { params: { path: { id: segment.id } } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: keys.segments.all(projectId) });
      void navigate(`/p/${projectId}/segments`);
    },
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
