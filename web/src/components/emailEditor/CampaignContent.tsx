import { useState } from 'react';
import { Alert, SegmentedControl, Stack, Text } from '@mantine/core';
import type { CampaignDraft } from '../../api/campaigns';
import { CodeEditor } from '../CodeEditor';
import { BlocksEditor } from './BlocksEditor';
import { emptyDocument } from './blocks';

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
  const [selected, setSelected] = useState<string | null>(null);
  // The first document error the server named (`document.blocks.3.src`), shown under the canvas.
  const documentError = errorOf('document') ?? (draft.document?.blocks ?? []).map((_, i) => errorOf(`document.blocks.${i}`)).find(Boolean);
  return (
    <Stack gap="xs">
      <div>
        <Text size="sm" fw={500} id="campaign-editor-switch">
          Editor
        </Text>
        <SegmentedControl
          aria-labelledby="campaign-editor-switch"
          value={draft.editor}
          onChange={(v) => set(v === 'blocks' ? { editor: 'blocks', document: draft.document ?? emptyDocument() } : { editor: 'html' })}
          data={[
            { value: 'blocks', label: 'Blocks' },
            { value: 'html', label: 'HTML' },
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
          label="Body"
          description={'HTML with Liquid: {{ email }}, {{ data.firstName ?? "there" }}; outputs are HTML-escaped'}
          required
          value={draft.body}
          onChange={(body) => set({ body })}
          error={errorOf('body')}
        />
      )}
    </Stack>
  );
}
