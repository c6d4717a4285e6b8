import { useState } from 'react';
import { Anchor, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { Link } from 'react-router';
import { api, unwrap } from '../../api/client';
import { useTemplatePicker } from '../../api/hooks/templates';
import { useDomains } from '../../api/hooks/domains';
import { useAppConfig } from '../../api/session';
import type { Campaign, CampaignDraft } from '../../api/campaigns';
import { ErrorState } from '../States';
import { SendTestButton } from '../SendTestButton';
import { Trans, useTranslation } from 'react-i18next';

/** The project's verified sender domains (GET /domains/project/:id); with the development inbox any domain may be typed. */
export function SenderFields({
  projectId,
  draft,
  set,
  error,
}: {
  projectId: string;
  draft: CampaignDraft;
  set: (p: Partial<CampaignDraft>) => void;
  error?: string;
}) {
  const { t } = useTranslation('campaigns');
  const config = useAppConfig();
  const domains = useDomains(projectId);
  const verified = (domains.data ?? []).filter((d) => d.status === 'VERIFIED').map((d) => d.domain);
  const waived = config.data?.email.senderCheckWaived;
  const data = draft.fromDomain && !verified.includes(draft.fromDomain) ? [...verified, draft.fromDomain] : verified;
  return (
    <Stack gap={4}>
      <Group gap="xs" align="flex-start" wrap="nowrap">
        <TextInput
          label={t('sender.from')}
          description={t('sender.fromHint')}
          required
          placeholder={t('sender.fromPlaceholder')}
          value={draft.fromLocal}
          onChange={(e) => set({ fromLocal: e.currentTarget.value })}
          error={error}
          style={{ flex: 1 }}
        />
        {waived && !verified.length ? (
          <TextInput
            label={t('sender.domain')}
            description={t('sender.anyDomain')}
            required
            placeholder={t('sender.domainPlaceholder')}
            value={draft.fromDomain}
            onChange={(e) => set({ fromDomain: e.currentTarget.value })}
            style={{ flex: 1 }}
          />
        ) : (
          <Select
            label={t('sender.domain')}
            description={t('sender.verifiedDomains')}
            required
            placeholder={domains.isPending ? t('loading') : t('sender.pickDomain')}
            data={data}
            value={draft.fromDomain || null}
            onChange={(v) => set({ fromDomain: v ?? '' })}
            allowDeselect={false}
            style={{ flex: 1 }}
          />
        )}
      </Group>
      {!domains.isPending && !verified.length && !waived ? (
        <Text size="sm" c="orange">
          <Trans t={t} i18nKey="sender.noDomain" components={{ domains: <Anchor component={Link} to={`/p/${projectId}/domains`} /> }} />
        </Text>
      ) : null}
      {domains.error ? <ErrorState error={domains.error} title={t('sender.domainsNotLoaded')} /> : null}
    </Stack>
  );
}

/** "Start from a template": copies a template's content into the campaign (campaigns keep their own copy). */
export function TemplatePicker({
  projectId,
  onPick,
}: {
  projectId: string;
  onPick: (t: { subject: string; body: string; text: string | null; from: string; fromName: string | null; replyTo: string | null }) => void;
}) {
  const { t } = useTranslation('campaigns');
  const templates = useTemplatePicker(projectId);
  const [loading, setLoading] = useState(false);
  const [picked, setPicked] = useState<string | null>(null);
  const [problem, setProblem] = useState<unknown>(null);
  return (
    <>
      <Select
        label={t('templatePicker.label')}
        description={t('templatePicker.description')}
        placeholder={templates.isPending ? t('loading') : templates.data?.data.length ? t('pickTemplate') : t('noTemplates')}
        data={(templates.data?.data ?? []).map((tpl) => ({ value: tpl.id, label: tpl.name }))}
        value={picked}
        searchable
        disabled={loading}
        onChange={async (id) => {
          if (!id) return;
          setLoading(true);
          setProblem(null);
          try {
            onPick(await unwrap(api.GET('/templates/{id}', { params: { path: { id } } })));
            setPicked(id);
          } catch (err) {
            setProblem(err);
          } finally {
            setLoading(false);
          }
        }}
      />
      {problem ? <ErrorState error={problem} title={t('templatePicker.notLoaded')} /> : null}
    </>
  );
}

/** "Send test": POST /campaigns/:id/test of the saved campaign to one address ("[Test] " before the subject; counters do not move). */
export function SendTest({ save, disabled }: { save: () => Promise<Campaign>; disabled: boolean }) {
  const { t } = useTranslation('campaigns');
  return (
    <SendTestButton
      disabled={disabled}
      prefillMine={false}
      intro={t('sendTest.campaignIntro')}
      toField="email"
      doneText={(_to, answer) => `${(answer as { message: string }).message}.`}
      send={async (to) => {
        const saved = await save();
        return unwrap(api.POST('/campaigns/{id}/test', { params: { path: { id: saved.id } }, body: { email: to } }));
      }}
    />
  );
}
