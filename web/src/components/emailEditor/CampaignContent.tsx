import { useState } from 'react';
import { Alert, SegmentedControl, Stack, Text } from '@mantine/core';
import type { CampaignDraft } from '../../api/campaigns';
import { CodeEditor } from '../CodeEditor';
import { BlocksEditor } from './BlocksEditor';
import { emptyDocument } from './blocks';
import { useTranslation } from 'react-i18next';

/**
 * A campaign's own body in the composer: "HTML" (the code editor) or "Blocks" (the template editor's
 * palette, canvas and block settings). The server compiles a block document once, when the campaign
 * is saved; every recipient's render starts from that HTML.
 */
export function CampaignContent({
  projectId,
  draft,
  set,
  errorOf,
}: {
  projectId: string;
  draft: CampaignDraft;
  set(patch: Partial<CampaignDraft>): void;
  errorOf(field: string): string | undefined;
}) {
  const { t } = useTranslation('editor');
  const [selected, setSelected] = useState<string | null>(null);
  // The first document error the server named (`document.blocks.3.src`), shown under the canvas.
  const documentError = errorOf('document') ?? (draft.document?.blocks ?? []).map((_, i) => errorOf(`document.blocks.${i}`)).find(Boolean);
  return (
    <Stack gap="xs">
      <div>
        <Text size="sm" fw={500} id="campaign-editor-switch">
          {t('content.editor')}
        </Text>
        <SegmentedControl
          aria-labelledby="campaign-editor-switch"
          value={draft.editor}
          onChange={(v) => set(v === 'blocks' ? { editor: 'blocks', document: draft.document ?? emptyDocument() } : { editor: 'html' })}
          data={[
            { value: 'blocks', label: t('content.blocks') },
            { value: 'html', label: t('content.html') },
          ]}
        />
      </div>
      {draft.editor === 'blocks' ? (
        <>
          <BlocksEditor
            projectId={projectId}
            document={draft.document ?? emptyDocument()}
            onChange={(document) => set({ document })}
            selected={selected}
            onSelect={setSelected}
            flagged={new Set()}
          />
          {documentError ? (
            <Alert color="red" role="alert" p="xs">
              {documentError}
            </Alert>
          ) : null}
        </>
      ) : (
        <CodeEditor
          label={t('content.body')}
          description={t('content.bodyHint', { examples: '{{ email }}, {{ data.firstName ?? "there" }}' })}
          required
          value={draft.body}
          onChange={(body) => set({ body })}
          error={errorOf('body')}
        />
      )}
    </Stack>
  );
}
