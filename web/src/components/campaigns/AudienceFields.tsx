import { useMemo } from 'react';
import { Group, Radio, Select, Stack, Text } from '@mantine/core';
import { fieldError } from '../../api/client';
import { useSegments } from '../../api/hooks/segments';
import type { CampaignDraft } from '../../api/campaigns';
import { conditionErrors, FilterBuilder } from '../FilterBuilder';
import { numberWords } from '../../api/dates';
import { useTranslation } from 'react-i18next';

/** What the audience picker edits: the composer's and the RSS campaign form's drafts both hold it. */
export type AudienceDraft = Pick<CampaignDraft, 'audienceType' | 'segmentId' | 'condition' | 'type'>;

/** "Audience": all contacts, a segment, or a filter (with its live count); the type decides who of them get marketing mail. */
export function AudienceFields({
  projectId,
  draft,
  set,
  errors,
}: {
  projectId: string;
  draft: AudienceDraft;
  set: (p: Partial<AudienceDraft>) => void;
  errors: unknown;
}) {
  const { t } = useTranslation('campaigns');
  const segments = useSegments(projectId, { enabled: draft.audienceType === 'SEGMENT' });
  const treeErrors = useMemo(() => conditionErrors(errors, 'audienceCondition'), [errors]);
  return (
    <Stack gap="sm">
      <Radio.Group label={t('audienceFields.label')} value={draft.audienceType} onChange={(v) => set({ audienceType: v as CampaignDraft['audienceType'] })}>
        <Group mt={4}>
          <Radio value="ALL" label={t('audience.ALL')} />
          <Radio value="SEGMENT" label={t('audience.SEGMENT')} />
          <Radio value="FILTERED" label={t('audience.FILTERED')} />
        </Group>
      </Radio.Group>
      {draft.audienceType === 'SEGMENT' ? (
        <Select
          label={t('audienceFields.segment')}
          required
          placeholder={segments.isPending ? t('loading') : t('audienceFields.pickSegment')}
          data={(segments.data ?? []).map((s) => ({ value: s.id, label: `${s.name} (${numberWords(s.memberCount)})` }))}
          value={draft.segmentId}
          onChange={(v) => set({ segmentId: v })}
          error={fieldError(errors, 'segmentId')}
          allowDeselect={false}
          searchable
        />
      ) : null}
      {draft.audienceType === 'FILTERED' ? (
        <FilterBuilder projectId={projectId} value={draft.condition} onChange={(condition) => set({ condition })} errors={treeErrors} />
      ) : null}
      <Text size="xs" c="dimmed">
        {draft.type === 'MARKETING' ? t('audienceFields.marketing') : t('audienceFields.transactional')}
      </Text>
    </Stack>
  );
}
