import { Paper, Select, SimpleGrid, Stack, Textarea, TextInput, Title } from '@mantine/core';
import { fieldError } from '../../api/client';
import { splitAddress, type CampaignDraft } from '../../api/campaigns';
import { TEMPLATE_TYPES } from '../../api/templates';
import { CampaignContent } from '../emailEditor/CampaignContent';
import { AbTestFields } from './AbTestFields';
import { SenderFields, TemplatePicker } from './ComposerFields';
import { useTranslation } from 'react-i18next';

/**
 * The composer's "Message": name and type, the sender, "Start from a template" (which copies its
 * content and sender in), the subject and its A/B test, the content and the plain-text part. `errors`
 * is the last save's error, whose field messages show on their fields.
 */
export function MessageFields({
  projectId,
  draft,
  set,
  errors,
}: {
  projectId: string;
  draft: CampaignDraft;
  set: (p: Partial<CampaignDraft>) => void;
  errors: unknown;
}) {
  const { t } = useTranslation('campaigns');
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          {t('editor.message')}
        </Title>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextInput
            label={t('editor.name')}
            description={t('internalName')}
            required
            value={draft.name}
            onChange={(e) => set({ name: e.currentTarget.value })}
            error={fieldError(errors, 'name')}
          />
          <Select
            label={t('editor.type')}
            data={TEMPLATE_TYPES.map((type) => ({ value: type, label: t(`type.${type}`) }))}
            value={draft.type}
            onChange={(v) => v && set({ type: v as CampaignDraft['type'] })}
            allowDeselect={false}
            error={fieldError(errors, 'type')}
          />
        </SimpleGrid>
        <SenderFields projectId={projectId} draft={draft} set={set} error={fieldError(errors, 'from')} />
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
          <TextInput
            label={t('editor.fromName')}
            value={draft.fromName}
            onChange={(e) => set({ fromName: e.currentTarget.value })}
            error={fieldError(errors, 'fromName')}
          />
          <TextInput
            label={t('editor.replyTo')}
            type="email"
            value={draft.replyTo}
            onChange={(e) => set({ replyTo: e.currentTarget.value })}
            error={fieldError(errors, 'replyTo')}
          />
        </SimpleGrid>
        <TemplatePicker
          projectId={projectId}
          onPick={(tpl) => {
            const [fromLocal, fromDomain] = splitAddress(tpl.from);
            set({
              subject: tpl.subject,
              body: tpl.body,
              text: tpl.text ?? '',
              fromLocal,
              fromDomain,
              fromName: tpl.fromName ?? '',
              replyTo: tpl.replyTo ?? '',
            });
          }}
        />
        <TextInput
          label={t('editor.subject')}
          required
          value={draft.subject}
          onChange={(e) => set({ subject: e.currentTarget.value })}
          error={fieldError(errors, 'subject') ?? fieldError(errors, 'abTest.subjects.0')}
        />
        <AbTestFields draft={draft} set={set} errors={errors} />
        <CampaignContent projectId={projectId} draft={draft} set={set} errorOf={(field) => fieldError(errors, field)} />
        <Textarea
          label={t('editor.plainText')}
          description={t('editor.plainTextHint')}
          value={draft.text}
          onChange={(e) => set({ text: e.currentTarget.value })}
          error={fieldError(errors, 'text')}
          autosize
          minRows={2}
          maxRows={10}
          spellCheck={false}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
        />
      </Stack>
    </Paper>
  );
}
