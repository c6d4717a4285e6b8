import { useState } from 'react';
import { Anchor, Button, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import { api, ApiError, forProject, unwrap } from '../../api/client';
import { ErrorState } from '../States';
import type { ListView } from './listView';
import { jobDone, jobPercent, useJobProgress } from './useJobProgress';

/** The finished file, fetched with the cookie and project header (a plain link could not carry X-Project-Id). */
async function download(projectId: string, jobId: string) {
  const res = await fetch(`/contacts/export/${jobId}/download`, { headers: forProject(projectId), credentials: 'same-origin' });
  if (!res.ok) throw new ApiError(res.status, `The download failed (${res.status})`);
  const url = URL.createObjectURL(await res.blob());
  const a = Object.assign(document.createElement('a'), { href: url, download: `contacts-${jobId}.csv` });
  a.click();
  URL.revokeObjectURL(url);
}

/**
 * "Export CSV" of the list as it is: its filter, search and columns, through the export job
 * (POST /contacts/export), with the job's progress and then "Download CSV".
 */
export function ExportCsv({ projectId, view }: { projectId: string; view: ListView }) {
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
        Export CSV
      </Button>
      {jobId || error ? (
        <Paper withBorder p="sm" component="section" aria-label="Export" w="100%">
          {error ? <ErrorState error={error} title="Not exported" /> : null}
          {jobId ? (
            <Stack gap={4}>
              <Progress value={jobPercent(job.data)} aria-label="Export progress" animated={!finished} />
              <Group justify="space-between">
                <Text size="sm" role="status" data-testid="export-status">
                  {job.data
                    ? finished
                      ? `Export ${job.data.status.toLowerCase()}: ${job.data.succeeded.toLocaleString()} contacts`
                      : `Exporting: ${job.data.processed.toLocaleString()} of ${job.data.total.toLocaleString()}`
                    : 'Export queued…'}
                </Text>
                {finished && job.data?.status === 'COMPLETED' ? (
                  <Anchor component="button" type="button" size="sm" onClick={() => download(projectId, jobId).catch(setError)}>
                    Download CSV
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
