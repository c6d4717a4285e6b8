import { useEffect, useMemo, useState } from 'react';
import { Alert, Button, FileInput, Group, Loader, Modal, Progress, Stack, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ErrorState } from '../States';
import { jobDone, jobPercent, useJobProgress } from './useJobProgress';
import { ColumnChoice, FieldType, ImportMapping, ImportPreview, initialChoices, mappingOf, mappingProblem } from './ImportMapping';


const asForm = (entries: Record<string, string | Blob>) => {
  const form = new FormData();
  for (const [k, v] of Object.entries(entries)) form.append(k, v);
  return { body: form as never, bodySerializer: (b: unknown) => b as FormData };
};

/**
 * "Import CSV": the file's first rows with a guessed type per column (POST /contacts/import/preview),
 * the mapping step (rename, retype, skip), then the upload with that mapping, followed as a job
 * (GET /contacts/import/:jobId) until it is done.
 */
export function ImportCsv({ projectId, onDone }: { projectId: string; onDone: () => void }) {
  const [opened, setOpened] = useState(false);
  const [file, setFile] = useState<File | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [preview, setPreview] = useState<ImportPreview | null>(null);
  const [choices, setChoices] = useState<ColumnChoice[]>([]);
  const [reading, setReading] = useState(false);
  const fields = useQuery({
    queryKey: ['contact-fields', projectId],
    enabled: opened,
    queryFn: () => unwrap(api.GET('/contacts/fields')),
  });
  const registered = useMemo(
    () => new Map<string, FieldType>((fields.data?.fields ?? []).filter((f) => f.isCustom).map((f) => [f.field.slice('data.'.length), f.type])),
    [fields.data],
  );
  const job = useJobProgress(projectId, 'import', jobId ?? undefined);
  const finished = jobDone(job.data);
  useEffect(() => {
    if (finished) onDone();
  }, [finished]); // eslint-disable-line react-hooks/exhaustive-deps

  async function choose(chosen: File | null) {
    setFile(chosen);
    setPreview(null);
    setError(null);
    if (!chosen) return;
    setReading(true);
    try {
      const read = await unwrap(api.POST('/contacts/import/preview', { ...asForm({ file: chosen }) }));
      setPreview(read);
      setChoices(initialChoices(read, registered));
    } catch (err) {
      setError(err);
    } finally {
      setReading(false);
    }
  }
  async function upload() {
    if (!file) return;
    setError(null);
    try {
      const res = await unwrap(
        api.POST('/contacts/import', { ...asForm({ file, mapping: JSON.stringify(mappingOf(choices)) }) }),
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
    setPreview(null);
  };
  const problem = preview ? mappingProblem(choices) : null;
  const percent = jobPercent(job.data);
  return (
    <>
      <Button variant="light" onClick={() => setOpened(true)}>
        Import CSV
      </Button>
      <Modal opened={opened} onClose={close} title="Import contacts from CSV" size={preview ? 'xl' : 'md'}>
        <Stack>
          <Text size="sm">A CSV file with a header row. Next you choose what each column becomes: the email address, the subscription or a field.</Text>
          <FileInput label="CSV file" accept=".csv,text/csv" value={file} onChange={choose} disabled={!!jobId} clearable clearButtonProps={{ 'aria-label': 'Clear the file' }} />
          {reading ? <Loader size="sm" aria-label="Reading the file" /> : null}
          {error ? <ErrorState error={error} title="The file was not imported" /> : null}
          {preview && !jobId ? (
            <>
              <Text size="sm">
                Check each column: the name it is imported as, its type (guessed from the first rows) or skip it. A value that does not fit its type is
                reported as a row error.
              </Text>
              <ImportMapping choices={choices} samples={preview.rows} registered={registered} onChange={setChoices} />
              {problem ? (
                <Alert color="yellow" role="alert">
                  {problem}
                </Alert>
              ) : null}
            </>
          ) : null}
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
                        <Table.Td>{e.row ? `Row ${e.row}, ${e.message}` : e.message}</Table.Td>
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
              <Button onClick={upload} disabled={!file || !preview || !!problem}>
                Import
              </Button>
            ) : null}
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
