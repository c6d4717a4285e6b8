import { useState } from 'react';
import { Anchor, Button, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { api, ApiError, forProject, unwrap } from '../../api/client';
import { numberWords } from '../../api/dates';
import { i18n } from '../../i18n';
import { ErrorState } from '../States';
import type { ListView } from './listView';
import { type Job, jobDone, jobPercent, useJobProgress } from '../../api/hooks/contacts';
import { pluralOf } from './plural';

/** The finished file, fetched with the cookie and project header (a plain link could not carry X-Project-Id). */
async function download(projectId: string, jobId: string) {
  const res = await fetch(`/contacts/export/${jobId}/download`, { headers: forProject(projectId), credentials: 'same-origin' });
  if (!res.ok) throw new ApiError(res.status, i18n.getFixedT(null, 'contacts')('export.downloadFailed', { status: res.status }));
  const url = URL.createObjectURL(await res.blob());
  const a = Object.assign(document.createElement('a'), { href: url, download: `contacts-${jobId}.csv` });
  a.click();
  URL.revokeObjectURL(url);
}

/** The export's line in words: "Exporting: 1,200 of 2,500", then "Done: 2,500 contacts exported". */
function exportLine(t: TFunction<'contacts'>, job: Pick<Job, 'status' | 'processed' | 'total' | 'succeeded'> | undefined): string {
  if (!job || job.status === 'QUEUED') return t('export.queued');
  if (job.status === 'RUNNING') return t('export.running', { processed: numberWords(job.processed), total: numberWords(job.total) });
  if (job.status === 'FAILED') return t('export.failed', { done: numberWords(job.succeeded), total: numberWords(job.total) });
  return t(`export.done.${pluralOf(job.succeeded)}`, { n: numberWords(job.succeeded) });
}

/**
 * "Export CSV" of the list as it is: its filter, search and columns, through the export job
 * (POST /contacts/export), with the job's progress and then "Download CSV".
 */
export function ExportCsv({ projectId, view }: { projectId: string; view: ListView }) {
  const { t } = useTranslation('contacts');
  const [jobId, setJobId] = useState<string>();
  const [error, setError] = useState<unknown>(null);
  const job = useJobProgress(projectId, 'export', jobId);
  const finished = jobDone(job.data);
  async function start() {
    setError(null);
    setJobId(undefined);
    try {
      const search = view.search.trim();
      const body = { format: 'csv' as const, ...(view.filter ? { filter: view.filter as never } : {}), ...(search ? { search } : {}), columns: view.columns };
      setJobId((await unwrap(api.POST('/contacts/export', { body }))).jobId);
    } catch (err) {
      setError(err);
    }
  }
  return (
    <>
      <Button variant="default" onClick={start} loading={!!jobId && !finished}>
        {t('export.button')}
      </Button>
      {jobId || error ? (
        <Paper withBorder p="sm" component="section" aria-label={t('export.label')} w="100%">
          {error ? <ErrorState error={error} title={t('export.notExported')} /> : null}
          {jobId ? (
            <Stack gap={4}>
              <Progress value={jobPercent(job.data)} aria-label={t('export.progress')} animated={!finished} />
              <Group justify="space-between">
                <Text size="sm" role="status" data-testid="export-status">
                  {exportLine(t, job.data)}
                </Text>
                {finished && job.data?.status === 'COMPLETED' ? (
                  <Anchor component="button" type="button" size="sm" onClick={() => download(projectId, jobId).catch(setError)}>
                    {t('export.download')}
                  </Anchor>
                ) : null}
              </Group>
            </Stack>
          ) : null}
        </Paper>
      ) : null}
    </>
  );
}
