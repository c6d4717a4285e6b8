import { Group, SegmentedControl, Stack, Text, Textarea } from '@mantine/core';
import type { Editor, Starter } from '../../api/emailEditor';
import { CodeEditor } from '../CodeEditor';
import { BlocksEditor } from './BlocksEditor';
import { emptyDocument } from './blocks';
import { VariableField } from './fields';
import { LanguageSwitcher } from './LanguageSwitcher';
import { StarterGallery } from './StarterGallery';
import { VariableMenu } from './VariableMenu';
import { localised, withLocalised, type Draft } from './templateDraft';
import { useTranslation } from 'react-i18next';

interface Props {
  projectId: string;
  draft: Draft;
  setDraft(update: (d: Draft) => Draft): void;
  locale: string;
  setLocale(locale: string): void;
  selected: string | null;
  onSelect(id: string | null): void;
  flagged: Set<string>;
  errorOf(field: string): string | undefined;
  /** A template being created: the starters show whichever editor is on. */
  isNew: boolean;
}

/**
 * The versioned content of one language: its subject and either the blocks or the HTML body (with the
 * plain-text part). The editor switch is the template's: every language uses the same one.
 */
export function ContentEditor({ projectId, draft, setDraft, locale, setLocale, selected, onSelect, flagged, errorOf, isNew }: Props) {
  const { t } = useTranslation('editor');
  const content = localised(draft, locale);
  const set = (patch: Parameters<typeof withLocalised>[2]) => setDraft((d) => withLocalised(d, locale, patch));
  const switchTo = (editor: Editor) => setDraft((d) => (editor === 'blocks' ? { ...d, editor, document: d.document ?? emptyDocument() } : { ...d, editor }));
  const start = (s: Starter) => {
    setDraft((d) => withLocalised({ ...d, editor: 'blocks' }, locale, { document: s.document, subject: content.subject || s.subject }));
    onSelect(null);
  };
  const empty = draft.editor === 'blocks' && !content.document?.blocks.length;
  return (
    <Stack gap="sm">
      <Group justify="space-between" align="flex-end">
        <LanguageSwitcher
          locales={Object.keys(draft.variants)}
          value={locale}
          onChange={setLocale}
          onAdd={(l) => {
            setDraft((d) => withLocalised(d, l, localised(d, '')));
            setLocale(l);
          }}
        />
        <div>
          <Text size="sm" fw={500} id="editor-switch">
            {t('content.editor')}
          </Text>
          <SegmentedControl
            aria-labelledby="editor-switch"
            value={draft.editor}
            onChange={(v) => switchTo(v as Editor)}
            data={[
              { value: 'blocks', label: t('content.blocks') },
              { value: 'html', label: t('content.html') },
            ]}
          />
        </div>
      </Group>
      <VariableField
        projectId={projectId}
        label={t('content.subject')}
        required
        value={content.subject}
        onChange={(subject) => set({ subject })}
        error={errorOf('subject')}
      />
      {isNew || empty ? <StarterGallery projectId={projectId} onChoose={start} /> : null}
      {draft.editor === 'blocks' ? (
        <>
          <BlocksEditor
            key={locale}
            projectId={projectId}
            document={content.document ?? emptyDocument()}
            onChange={(document) => set({ document })}
            selected={selected}
            onSelect={onSelect}
            flagged={flagged}
          />
          {errorOf('document') ? (
            <Text size="sm" c="red" role="alert">
              {errorOf('document')}
            </Text>
          ) : null}
        </>
      ) : (
        <>
          <CodeEditor
            label={t('content.body')}
            description={t('content.bodyHint', { examples: '{{ email }}, {{ data.firstName ?? "there" }}, {% if data.plan == "pro" %}…{% endif %}' })}
            required
            value={content.body}
            onChange={(body) => set({ body })}
            error={errorOf('body')}
          />
          <Group>
            <VariableMenu projectId={projectId} onInsert={(snippet) => set({ body: `${content.body}${snippet}` })} />
          </Group>
        </>
      )}
      <Textarea
        label={t('content.plainText')}
        description={t('content.plainTextHint')}
        value={content.text}
        onChange={(e) => set({ text: e.currentTarget.value })}
        error={errorOf('text')}
        autosize
        minRows={2}
        maxRows={12}
        spellCheck={false}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
      />
    </Stack>
  );
}
