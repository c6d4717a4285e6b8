import { useMemo, useState } from 'react';
import { Stack, Textarea } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { Preview } from '../../api/emailEditor';
import { parsePreviewData } from '../../api/templates';
import { ChecksPanel } from './ChecksPanel';
import { ContactPicker } from './ContactPicker';
import { EditorPreview } from './EditorPreview';
import { useTranslation } from 'react-i18next';

/**
 * The preview's data as the person types it (JSON), parsed: `data` when it is an object, else the
 * sentence saying what is wrong (`problem`), which keeps the preview from being asked for.
 */
export function usePreviewData(initial = '{\n  "firstName": "Ada"\n}') {
  const { t } = useTranslation('editor');
  const [source, setSource] = useState(initial);
  const parsed = useMemo(() => parsePreviewData(source), [source]);
  const problem =
    parsed.problem === 'notObject'
      ? t('previewData.notObject', { example: '{"first name": "Ada"}' })
      : parsed.problem === 'notJson'
        ? t('previewData.notJson', { reason: parsed.reason })
        : undefined;
  return { source, setSource, data: parsed.data, problem };
}

/** The editor's right column: the "Checks" (a click selects the block), then the preview with "Preview as" and the data. */
export function PreviewPanel({
  projectId,
  preview,
  contactId,
  onContact,
  previewData,
  onSelect,
}: {
  projectId: string;
  preview: Pick<UseQueryResult<Preview>, 'data' | 'error' | 'isFetching'>;
  contactId: string | null;
  onContact(id: string | null): void;
  previewData: ReturnType<typeof usePreviewData>;
  onSelect(blockId: string): void;
}) {
  const { t } = useTranslation('editor');
  return (
    <Stack gap="md">
      <ChecksPanel checks={preview.data?.checks} pending={preview.isFetching} onSelect={onSelect} />
      <EditorPreview preview={preview.data} error={preview.error} fetching={preview.isFetching}>
        <ContactPicker projectId={projectId} value={contactId} onChange={onContact} />
        <Textarea
          label={t('templateEditor.previewData')}
          description={t('templateEditor.previewDataHint')}
          value={previewData.source}
          onChange={(e) => previewData.setSource(e.currentTarget.value)}
          error={previewData.problem}
          autosize
          minRows={2}
          maxRows={8}
          spellCheck={false}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
        />
      </EditorPreview>
    </Stack>
  );
}
