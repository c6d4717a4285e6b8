import { useEffect, useState } from 'react';
import { Button, Group, Modal, Paper, Progress, Stack, Text } from '@mantine/core';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { numberWords } from '../../api/dates';
import { ErrorState } from '../States';
import { notifySuccess } from '../notify';
import { restoreContacts, snapshotContacts } from './restoreContacts';
import type { Matching } from './listView';
import { type Job, jobDone, jobPercent, useJobProgress } from '../../api/hooks/contacts';
import { pluralOf } from './plural';

type BulkAction = 'subscribe' | 'unsubscribe' | 'delete';
const BULK_PATHS = { subscribe: '/contacts/bulk-subscribe', unsubscribe: '/contacts/bulk-unsubscribe', delete: '/contacts/bulk-delete' } as const;

/** The checked contacts by id (up to 1,000 a job), or the whole selection ("Select all N matching"). */
export type BulkTarget = { contactIds: string[] } | { matching: Matching; count: number };
const countOf = (t: BulkTarget) => ('contactIds' in t ? t.contactIds.length : t.count);

/** The job's line in words: "Unsubscribing: 1,200 of 2,500", then "Done: 2,500 contacts unsubscribed" (and how many could not be). */
function jobLine(t: TFunction<'contacts'>, action: BulkAction, job: Job | undefined): string {
  if (!job || job.status === 'QUEUED') return t(`bulk.job.${action}.queued`);
  if (job.status === 'RUNNING') return t(`bulk.job.${action}.running`, { processed: numberWords(job.processed), total: numberWords(job.total) });
  if (job.status === 'FAILED') return t(`bulk.job.${action}.failed`, { done: numberWords(job.succeeded), total: numberWords(job.total) });
  const done = t(`bulk.job.${action}.done.${pluralOf(job.succeeded)}`, { n: numberWords(job.succeeded) });
  return job.failed ? done + t(`bulk.job.notChanged.${pluralOf(job.failed)}`, { n: numberWords(job.failed) }) : done;
}

/**
 * Bulk subscribe, unsubscribe or delete (POST /contacts/bulk-*, a queued job), then its progress
 * from GET /contacts/bulk/:jobId until it is done. Delete asks first.
 */
export function BulkActions({ projectId, target, onDone }: { projectId: string; target: BulkTarget; onDone: () => void }) {
  const { t } = useTranslation('contacts');
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
      const undo = deleted && gone === deleted.length ? { label: t('undo'), run: () => restoreContacts(projectId, deleted).finally(onDone) } : undefined;
      notifySuccess(t(`bulk.deleted.${pluralOf(gone)}`, { n: numberWords(gone) }), { undo });
    }
  }, [finished]);

  async function start(action: BulkAction) {
    setError(null);
    setAsking(false);
    try {
      const body = 'contactIds' in target ? { contactIds: target.contactIds } : { matching: target.matching };
      setDeleted(action === 'delete' && 'contactIds' in target ? await snapshotContacts(target.contactIds) : null);
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
    <Paper withBorder p="sm" aria-label={t('bulk.label')} component="section">
      <Group justify="space-between">
        <Text size="sm">
          {t(`bulk.${'matching' in target ? 'selectedMatching' : 'selected'}.${pluralOf(count)}`, { n: numberWords(count) })}
          {tooMany ? ` ${t('bulk.tooMany')}` : null}
        </Text>
        <Group gap="xs">
          <Button size="xs" variant="light" disabled={busy || !count || tooMany} onClick={() => start('subscribe')}>
            {t('bulk.subscribe')}
          </Button>
          <Button size="xs" variant="light" disabled={busy || !count || tooMany} onClick={() => start('unsubscribe')}>
            {t('bulk.unsubscribe')}
          </Button>
          <Button size="xs" color="red" variant="light" disabled={busy || !count || tooMany} onClick={() => setAsking(true)}>
            {t('bulk.delete')}
          </Button>
        </Group>
      </Group>
      {error ? <ErrorState error={error} title={t('bulk.notStarted')} /> : null}
      {running ? (
        <Stack gap={4} mt="xs">
          <Progress value={jobPercent(job.data)} aria-label={t('bulk.progress')} animated={!finished} />
          <Text size="sm" role="status" data-testid="bulk-status">
            {jobLine(t, running.action, job.data)}
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
        title={t(`bulk.confirmTitle.${pluralOf(count)}`, { n: numberWords(count) })}
        closeButtonProps={{ 'aria-label': t('close') }}
      >
        <Stack>
          <Text>{t('bulk.confirmBody')}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setAsking(false)}>
              {t('cancel')}
            </Button>
            <Button color="red" onClick={() => start('delete')}>
              {t('bulk.confirm')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Paper>
  );
}
