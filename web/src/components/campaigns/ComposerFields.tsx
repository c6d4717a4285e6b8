import { useMemo, useState } from 'react';
import { Anchor, Button, Group, NumberInput, Radio, Select, SimpleGrid, Stack, Switch, Text, TextInput } from '@mantine/core';
import { Link } from 'react-router';
import { api, fieldError, unwrap } from '../../api/client';
import { useTemplatePicker } from '../../api/hooks/templates';
import { useDomains } from '../../api/hooks/domains';
import { useAppConfig } from '../../api/session';
import { DURATION_UNITS, type Campaign, type CampaignDraft, type DurationUnit, type Schedule } from '../../api/campaigns';
import { ErrorState } from '../States';
import { browserZone } from '../../api/dates';
import { SendTestButton } from '../SendTestButton';
import { Trans, useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';

export const zones = () => {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return ['UTC'];
  }
};

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

export function AbTestFields({ draft, set, errors }: { draft: CampaignDraft; set: (p: Partial<CampaignDraft>) => void; errors: unknown }) {
  const { t } = useTranslation('campaigns');
  const ab = draft.ab;
  const setAb = (p: Partial<CampaignDraft['ab']>) => set({ ab: { ...ab, ...p } });
  return (
    <Stack gap="xs">
      <Switch label={t('abTest.toggle')} checked={ab.on} onChange={(e) => setAb({ on: e.currentTarget.checked })} />
      {ab.on ? (
        <>
          <Text size="sm" c="dimmed">
            {t('abTest.intro')}
          </Text>
          {ab.subjects.map((s, i) => (
            <Group key={i} gap="xs" align="flex-end" wrap="nowrap">
              <TextInput
                label={t('abTest.subject', { letter: String.fromCharCode(66 + i) })}
                value={s}
                onChange={(e) => {
                  const value = e.currentTarget.value;
                  setAb({ subjects: ab.subjects.map((x, j) => (j === i ? value : x)) });
                }}
                error={fieldError(errors, `abTest.subjects.${i + 1}`)}
                style={{ flex: 1 }}
              />
              {ab.subjects.length > 1 ? (
                <Button
                  variant="subtle"
                  color="red"
                  onClick={() => setAb({ subjects: ab.subjects.filter((_, j) => j !== i) })}
                  aria-label={t('abTest.removeSubject', { letter: String.fromCharCode(66 + i) })}
                >
                  {t('abTest.remove')}
                </Button>
              ) : null}
            </Group>
          ))}
          {ab.subjects.length < 4 ? (
            <Group>
              <Button size="xs" variant="light" onClick={() => setAb({ subjects: [...ab.subjects, ''] })}>
                {t('abTest.addSubject')}
              </Button>
            </Group>
          ) : null}
          {fieldError(errors, 'abTest.subjects') ? (
            <Text size="sm" c="red" role="alert">
              {fieldError(errors, 'abTest.subjects')}
            </Text>
          ) : null}
          <SimpleGrid cols={{ base: 1, sm: 4 }} spacing="xs">
            <NumberInput
              label={t('abTest.testGroup')}
              min={1}
              max={50}
              value={ab.testPercent}
              onChange={(v) => setAb({ testPercent: String(v) })}
              error={fieldError(errors, 'abTest.testPercent')}
            />
            <NumberInput
              label={t('abTest.winnerAfter')}
              min={1}
              value={ab.amount}
              onChange={(v) => setAb({ amount: String(v) })}
              error={fieldError(errors, 'abTest.winnerAfter.amount') ?? fieldError(errors, 'abTest.winnerAfter')}
            />
            <Select
              label={t('abTest.unit')}
              data={DURATION_UNITS.map((u) => ({ value: u, label: t(`abTest.units.${u}`) }))}
              value={ab.unit}
              onChange={(v) => v && setAb({ unit: v as DurationUnit })}
              allowDeselect={false}
            />
            <Select
              label={t('abTest.metric')}
              data={[
                { value: 'opens', label: t('abTest.opens') },
                { value: 'clicks', label: t('abTest.clicks') },
              ]}
              value={ab.metric}
              onChange={(v) => v && setAb({ metric: v as CampaignDraft['ab']['metric'] })}
              allowDeselect={false}
            />
          </SimpleGrid>
        </>
      ) : null}
    </Stack>
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

export function ScheduleFields({ schedule, setSchedule }: { schedule: Schedule; setSchedule: (s: Schedule) => void }) {
  const { t } = useTranslation('campaigns');
  const zoneList = useMemo(zones, []);
  const local = schedule.kind === 'now' ? '' : schedule.local;
  return (
    <Stack gap="xs">
      <Radio.Group
        label={t('schedule.when')}
        value={schedule.kind}
        onChange={(k) => setSchedule(k === 'now' ? { kind: 'now' } : k === 'at' ? { kind: 'at', local, timeZone: browserZone() } : { kind: 'local', local })}
      >
        <Group mt={4}>
          <Radio value="now" label={t('schedule.now')} />
          <Radio value="at" label={t('schedule.at')} />
          <Radio value="local" label={t('schedule.local')} />
        </Group>
      </Radio.Group>
      {schedule.kind === 'at' ? (
        <Group gap="xs" align="flex-start">
          <TextInput
            label={t('schedule.dateTime')}
            type="datetime-local"
            required
            value={schedule.local}
            onChange={(e) => setSchedule({ ...schedule, local: e.currentTarget.value })}
            w={230}
          />
          <Select
            label={t('schedule.timeZone')}
            data={zoneList}
            searchable
            value={schedule.timeZone}
            onChange={(z) => z && setSchedule({ ...schedule, timeZone: z })}
            allowDeselect={false}
            w={240}
          />
        </Group>
      ) : null}
      {schedule.kind === 'local' ? (
        <TextInput
          label={t('schedule.localDateTime')}
          description={t('schedule.localHint')}
          type="datetime-local"
          required
          value={schedule.local}
          onChange={(e) => setSchedule({ ...schedule, local: e.currentTarget.value })}
          w={320}
        />
      ) : null}
    </Stack>
  );
}

/** The send confirmation's sentence: "Spring sale goes to 3 contacts at 2030-01-15 09:30 (Asia/Tokyo)." */
export function goesText(t: TFunction<'campaigns'>, name: string, contacts: string, s: Schedule): string {
  if (s.kind === 'now') return t('editor.goesNow', { name, contacts });
  const local = s.local.replace('T', ' ');
  if (s.kind === 'local') return t('editor.goesLocal', { name, contacts, local });
  return t('editor.goesAt', { name, contacts, local, zone: s.timeZone });
}
