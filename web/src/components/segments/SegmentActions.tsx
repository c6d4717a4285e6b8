import { useState } from 'react';
import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../../api/client';
import { ErrorState } from '../States';
import type { Segment } from './SegmentMembers';

/** Compute (tracked segments: entry/exit events) and Refresh (recount only), each with what it answered. */
export function Recount({ projectId, segment }: { projectId: string; segment: Segment }) {
  const qc = useQueryClient();
  const [result, setResult] = useState<string | null>(null);
  const path = { params: { path: { id: segment.id } } };
  // Not awaited: the button is done when the answer is shown; the count and members follow.
  const after = (sentence: string) => {
    setResult(sentence);
    void qc.invalidateQueries({ queryKey: ['segment', projectId, segment.id] });
    void qc.invalidateQueries({ queryKey: ['segments', projectId] });
    void qc.invalidateQueries({ queryKey: ['segment-members', projectId, segment.id] });
  };
  const compute = useMutation({
    // 200 with the counts, or 202 while it still runs: both are in the route's responses.
    mutationFn: () => unwrap(api.POST('/segments/{id}/compute', path)),
    onSuccess: (r) =>
      after(
        'running' in r
          ? `Still computing (workflow ${r.workflowId}); the count updates when it ends.`
          : `Computed: ${r.memberCount} member${r.memberCount === 1 ? '' : 's'}, ${r.entered} entered, ${r.exited} exited.`,
      ),
  });
  const refresh = useMutation({
    meta: { success: 'Segment refreshed' },
    mutationFn: () => unwrap(api.POST('/segments/{id}/refresh', path)),
    onSuccess: (r) => after(`Refreshed: ${r.memberCount} member${r.memberCount === 1 ? '' : 's'}.`),
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
          title={segment.trackMembership ? 'Diff the stored membership with the live match and fire entry/exit events' : 'Not tracked: recounts only'}
        >
          Compute
        </Button>
        <Button
          variant="default"
          onClick={() => {
            setResult(null);
            refresh.mutate();
          }}
          loading={refresh.isPending}
        >
          Refresh
        </Button>
        <Text size="sm" c="dimmed">
          Cached count: <b data-testid="cached-count">{segment.memberCount}</b>
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
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [asking, setAsking] = useState(false);
  const remove = useMutation({
    meta: { success: 'Segment deleted' },
    mutationFn: () => unwrap(api.DELETE('/segments/{id}', { params: { path: { id: segment.id } } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['segments', projectId] });
      void navigate(`/p/${projectId}/segments`);
    },
  });
  return (
    <>
      <Button color="red" variant="light" onClick={() => setAsking(true)}>
        Delete
      </Button>
      <Modal opened={asking} onClose={() => setAsking(false)} title="Delete this segment?">
        <Stack>
          <Text>{segment.name} is deleted; its contacts stay. A campaign that is scheduled or sending to it prevents this.</Text>
          {remove.error ? <ErrorState error={remove.error} title="Not deleted" /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setAsking(false)}>
              Cancel
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
              Delete segment
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
