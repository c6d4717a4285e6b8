import { useState } from 'react';
import { Button, FileInput, Group, Progress, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { ErrorState } from '../States';
import { useTranslation } from 'react-i18next';

/** As many addresses as POST /suppressions takes at once (api/schemas/suppressions.ts MAX_SUPPRESSIONS_PER_REQUEST). */
const CHUNK = 1000;
const ADDRESS = /^[^\s@,;"']+@[^\s@,;"']+\.[^\s@,;"']+$/;

/**
 * The addresses of a CSV (or a plain list, one a line): every cell that is an address, once each, in
 * the file's order. A header row or a name column is skipped by the same rule, and the lines holding
 * no address are counted so the person learns what was left out.
 */
export function addressesOf(text: string): { emails: string[]; skipped: number } {
  const seen = new Set<string>();
  let skipped = 0;
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const cells = line.split(/[,;\t]/).map((c) =>
      c
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .trim(),
    );
    const found = cells.filter((c) => ADDRESS.test(c));
    if (!found.length) skipped++;
    for (const e of found) seen.add(e.toLowerCase());
  }
  return { emails: [...seen], skipped };
}

/** "Add from a CSV file": suppresses every address of a file, a thousand per request, with its progress and what it did. */
export function SuppressionCsv({ projectId }: { projectId: string }) {
  const { t } = useTranslation('mail');
  const qc = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const upload = useMutation({
    mutationFn: async (f: File) => {
      const { emails, skipped } = addressesOf(await f.text());
      if (!emails.length) throw new Error(t('csv.noAddress', { file: f.name }));
      let added = 0;
      let existing = 0;
      setProgress({ done: 0, total: emails.length });
      for (let i = 0; i < emails.length; i += CHUNK) {
        const r = await unwrap(api.POST('/suppressions', { body: { emails: emails.slice(i, i + CHUNK) } }));
        added += r.added.length;
        existing += r.existing.length;
        setProgress({ done: Math.min(i + CHUNK, emails.length), total: emails.length });
      }
      return { added, existing, skipped };
    },
    onSuccess: (r) => {
      setFile(null);
      const parts = [t('csv.added', { n: r.added }), t('csv.existing', { n: r.existing })];
      if (r.skipped) parts.push(r.skipped === 1 ? t('csv.skippedOne', { n: r.skipped }) : t('csv.skippedMany', { n: r.skipped }));
      setOutcome(t('csv.outcome', { parts: parts.join(', ') }));
    },
    onSettled: () => {
      setProgress(null);
      return qc.invalidateQueries({ queryKey: keys.suppressions.all(projectId) });
    },
  });
  return (
    <Stack gap="xs">
      <Group align="flex-end">
        <FileInput
          label={t('csv.file')}
          description={t('csv.fileHint')}
          accept=".csv,text/csv,text/plain"
          value={file}
          onChange={(f) => {
            setOutcome(null);
            upload.reset();
            setFile(f);
          }}
          clearable
          w={320}
        />
        <Button variant="default" disabled={!file} loading={upload.isPending} onClick={() => file && upload.mutate(file)}>
          {t('csv.submit')}
        </Button>
      </Group>
      {progress ? <Progress value={(progress.done / progress.total) * 100} aria-label={t('csv.progress')} /> : null}
      {upload.error ? <ErrorState error={upload.error} title={t('csv.notAll')} /> : null}
      {outcome ? (
        <Text size="sm" role="status">
          {outcome}
        </Text>
      ) : null}
    </Stack>
  );
}
