import { useEffect, useState } from 'react';
import { Button, Group, Modal, Paper, Progress, Stack, Text } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { ErrorState } from '../States';
import { notifySuccess } from '../notify';
import { restoreContacts, snapshotContacts } from './restoreContacts';
import type { Matching } from './listView';
import { jobDone, jobPercent, useJobProgress } from './useJobProgress';

type BulkAction = 'subscribe' | 'unsubscribe' | 'delete';
const BULK_PATHS = { subscribe: '/contacts/bulk-subscribe', unsubscribe: '/contacts/bulk-unsubscribe', delete: '/contacts/bulk-delete' } as const;
const BULK_LABELS: Record<BulkAction, string> = { subscribe: 'Subscribe', unsubscribe: 'Unsubscribe', delete: 'Delete' };

/** The checked contacts by id (up to 1,000 a job), or the whole selection ("Select all N matching"). */
export type BulkTarget = { contactIds: string[] } | { matching: Matching; count: number };
const countOf = (t: BulkTarget) => ('contactIds' in t ? t.contactIds.length : t.count);

/**
 * Bulk subscribe, unsubscribe or delete (POST /contacts/bulk-*, a queued job), then its progress
 * from GET /contacts/bulk/:jobId until it is done. Delete asks first.
 */
export function BulkActions({ projectId, target, onDone }: { projectId: string; target: BulkTarget; onDone: () => void }) {
  const [asking, setAsking] = useState(false);
  const [running, setRunning] = useState<{ action: BulkAction; jobId: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const job = useJobProgress(projectId, 'bulk', running?.jobId);
  const finished = jobDone(job.data);
  // The deleted contacts as they were, for the toast's "Undo" (restoreContacts.ts): checked ones only, not a whole filter.
  const [deleted, setDeleted] = useState<Awaited<ReturnType<typeof snapshotContacts>>>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per finished job, whatever callback the parent passes this render
  useEffect(() => {
    if (!finished) return;
    onDone();
    if (running?.action === 'delete' && job.data) {
      const gone = job.data.succeeded;
      const undo = deleted && gone === deleted.length ? { run: () => restoreContacts(projectId, deleted).finally(onDone) } : undefined;
      notifySuccess(`${gone} contact${gone === 1 ? '' : 's'} deleted`, { undo });
    }
  }, [finished]);

  async function start(action: BulkAction) {
    setError(null);
    setAsking(false);
    try {
      const body = 'contactIds' in target ? { contactIds: target.contactIds } : { matching: target.matching };
      setDeleted(action === 'delete' && 'contactIds' in target ? await snapshotContacts(projectId, target.contactIds) : null);
      const res = await unwrap(api.POST(BULK_PATHS[action], { body }));
      setRunning({ action, jobId: res.jobId });
    } catch (err) {
      setError(err);
    }
  }
  const busy = !!running && !finished;
  const count = countOf(target);
  // Shown while contacts are selected, and after a job until another starts (its outcome stays readable).
  if (!count && !running && !error) return null;
  const tooMany = 'contactIds' in target && count > 1000;
  return (
    <Paper withBorder p="sm" aria-label="Bulk actions" component="section">
      <Group justify="space-between">
        <Text size="sm">
          {count.toLocaleString()} selected{'matching' in target ? ' (every contact matching)' : ''}
          {tooMany ? ' (at most 1,000 at a time: use "Select all matching")' : ''}
        </Text>
        <Group gap="xs">
          <Button size="xs" variant="light" disabled={busy || !count || tooMany} onClick={() => start('subscribe')}>
            Subscribe selected
          </Button>
          <Button size="xs" variant="light" disabled={busy || !count || tooMany} onClick={() => start('unsubscribe')}>
            Unsubscribe selected
          </Button>
          <Button size="xs" color="red" variant="light" disabled={busy || !count || tooMany} onClick={() => setAsking(true)}>
            Delete selected
          </Button>
        </Group>
      </Group>
      {error ? <ErrorState error={error} title="Not started" /> : null}
      {running ? (
        <Stack gap={4} mt="xs">
          <Progress value={jobPercent(job.data)} aria-label="Bulk progress" animated={!finished} />
          <Text size="sm" role="status" data-testid="bulk-status">
            {BULK_LABELS[running.action]}:{' '}
            {job.data
              ? finished
                ? `${job.data.status.toLowerCase()}: ${job.data.succeeded.toLocaleString()} done, ${job.data.failed.toLocaleString()} failed`
                : `${job.data.status.toLowerCase()}: ${job.data.processed.toLocaleString()} of ${job.data.total.toLocaleString()}`
              : 'queued…'}
          </Text>
          {job.data?.errors.length ? (
            <Text size="xs" c="red">
              {job.data.errors
                .slice(0, 5)
                .map((e) => `${e.contactId ?? ''} ${e.message}`)
                .join('; ')}
            </Text>
          ) : null}
          {job.error ? <ErrorState error={job.error} /> : null}
        </Stack>
      ) : null}
      <Modal
        opened={asking}
        onClose={() => setAsking(false)}
        title={`Delete ${count.toLocaleString()} contact${count === 1 ? '' : 's'}?`}
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        <Stack>
          <Text>The selected contacts and all of their events are deleted for good.</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setAsking(false)}>
              Cancel
            </Button>
            <Button color="red" onClick={() => start('delete')}>
              Delete contacts
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}
