import type { TFunction } from 'i18next';
import { useEffect, useMemo, useState } from 'react';
import { Alert, Button, FileInput, Group, Loader, Modal, Progress, Stack, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { api, unwrap } from '../../api/client';
import { numberWords } from '../../api/dates';
import { ErrorState } from '../States';
import { type ImportJob, jobDone, jobPercent, useContactFields, useJobProgress } from '../../api/hooks/contacts';
import { ColumnChoice, FieldType, ImportMapping, ImportPreview, initialChoices, mappingOf, mappingProblem } from './ImportMapping';

/** The job's line in words: "Importing: 300 of 1,000 rows", then "Done: 1,000 of 1,000 rows". */
const IMPORT_LINE = { RUNNING: 'import.running', COMPLETED: 'import.completed', FAILED: 'import.failed' } as const;
const importLine = (t: TFunction<'contacts'>, job: ImportJob | undefined) =>
  !job || job.status === 'QUEUED' ? t('import.queued') : t(IMPORT_LINE[job.status], { processed: numberWords(job.processed), total: numberWords(job.total) });

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
  const { t } = useTranslation('contacts');
  const [opened, setOpened] = useState(false);
  const [file, setFile] = useState<File | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [preview, setPreview] = useState<ImportPreview | null>(null);
  const [choices, setChoices] = useState<ColumnChoice[]>([]);
  const [reading, setReading] = useState(false);
  const fields = useContactFields(projectId, { enabled: opened });
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
      const res = await unwrap(api.POST('/contacts/import', { ...asForm({ file, mapping: JSON.stringify(mappingOf(choices)) }) }));
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
        {t('import.button')}
      </Button>
      <Modal opened={opened} onClose={close} title={t('import.title')} size={preview ? 'xl' : 'md'}>
        <Stack>
          <Text size="sm">{t('import.intro')}</Text>
          <FileInput
            label={t('import.file')}
            accept=".csv,text/csv"
            value={file}
            onChange={choose}
            disabled={!!jobId}
            clearable
            clearButtonProps={{ 'aria-label': t('import.clearFile') }}
          />
          {reading ? <Loader size="sm" aria-label={t('import.reading')} /> : null}
          {error ? <ErrorState error={error} title={t('import.notImported')} /> : null}
          {preview && !jobId ? (
            <>
              <Text size="sm">{t('import.check')}</Text>
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
              <Progress value={percent} aria-label={t('import.progress')} animated={!finished} />
              <Text size="sm" role="status">
                {importLine(t, job.data)}
              </Text>
              {finished ? (
                <Text size="sm">{t('import.outcome', { succeeded: numberWords(job.data!.succeeded), failed: numberWords(job.data!.failed) })}</Text>
              ) : null}
              {job.data?.errors.length ? (
                <Table aria-label={t('import.rowErrors')}>
                  <Table.Tbody>
                    {job.data.errors.slice(0, 20).map((e, i) => (
                      <Table.Tr key={i}>
                        <Table.Td>{e.row ? t('import.rowError', { row: numberWords(e.row), message: e.message }) : e.message}</Table.Td>
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
              {finished ? t('close') : t('cancel')}
            </Button>
            {!jobId ? (
              <Button onClick={upload} disabled={!file || !preview || !!problem}>
                {t('import.submit')}
              </Button>
            ) : null}
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
