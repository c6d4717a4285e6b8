import { useEffect, useState } from 'react';
import { Button, FileInput, Group, Modal, Progress, Stack, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, forProject, ResponseOf, unwrap } from '../../api/client';
import { ErrorState } from '../States';

type Job = ResponseOf<'/contacts/import/{jobId}', 'get'>;

/** "Import CSV": uploads the file, then follows the job (GET /contacts/import/:jobId) until it is done. */
export function ImportCsv({ projectId, onDone }: { projectId: string; onDone: () => void }) {
  const [opened, setOpened] = useState(false);
  const [file, setFile] = useState<File | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const job = useQuery({
    queryKey: ['import', projectId, jobId],
    enabled: !!jobId,
    queryFn: () => unwrap(api.GET('/contacts/import/{jobId}', { params: { path: { jobId: jobId! } }, headers: forProject(projectId) })),
    refetchInterval: (q) => (q.state.data && ['COMPLETED', 'FAILED'].includes((q.state.data as Job).status) ? false : 500),
  });
  const finished = job.data && ['COMPLETED', 'FAILED'].includes(job.data.status);
  useEffect(() => {
    if (finished) onDone();
  }, [finished]); // eslint-disable-line react-hooks/exhaustive-deps

  async function upload() {
    if (!file) return;
    setError(null);
    try {
      const form = new FormData();
      form.append('file', file);
      const res = await unwrap(
        api.POST('/contacts/import', { body: form as never, bodySerializer: (b) => b as unknown as FormData, headers: forProject(projectId) }),
      );
      setJobId(res.jobId);
    } catch (err) {
      setError(err);
    }
  }
  const close = () => {
    setOpened(false);
    setJobId(null);
    setFile(null);
    setError(null);
  };
  const percent = job.data ? (job.data.total ? (100 * job.data.processed) / job.data.total : finished ? 100 : 0) : 0;
  return (
    <>
      <Button variant="light" onClick={() => setOpened(true)}>
        Import CSV
      </Button>
      <Modal opened={opened} onClose={close} title="Import contacts from CSV">
        <Stack>
          <Text size="sm">A header row with `email` (required), `subscribed` (optional); any other column becomes a custom field.</Text>
          <FileInput label="CSV file" accept=".csv,text/csv" value={file} onChange={setFile} disabled={!!jobId} clearable />
          {error ? <ErrorState error={error} title="The file was not imported" /> : null}
          {jobId ? (
            <Stack gap={4}>
              <Progress value={percent} aria-label="Import progress" animated={!finished} />
              <Text size="sm" role="status">
                {job.data ? `${job.data.status.toLowerCase()}: ${job.data.processed} of ${job.data.total} rows` : 'Queued…'}
              </Text>
              {finished ? (
                <Text size="sm">
                  {job.data!.succeeded} imported, {job.data!.failed} failed.
                </Text>
              ) : null}
              {job.data?.errors.length ? (
                <Table aria-label="Row errors">
                  <Table.Tbody>
                    {job.data.errors.slice(0, 20).map((e, i) => (
                      <Table.Tr key={i}>
                        <Table.Td>Row {e.row ?? '?'}</Table.Td>
                        <Table.Td>{e.message}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              ) : null}
              {job.error ? <ErrorState error={job.error} /> : null}
            </Stack>
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              {finished ? 'Close' : 'Cancel'}
            </Button>
            {!jobId ? (
              <Button onClick={upload} disabled={!file}>
                Upload
              </Button>
            ) : null}
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
