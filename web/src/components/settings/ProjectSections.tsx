import { useState, type FormEvent, type ReactNode } from 'react';
import { Button, Group, NumberInput, Paper, Select, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, type Project, ResponseOf, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { ErrorState } from '../States';
import { SaveButton } from '../SaveButton';
import { useTranslation } from 'react-i18next';

/** An empty cap field is no cap. */
export const capOf = (v: number | string) => (v === '' ? null : Number(v));

export type SendingPolicy = ResponseOf<'/settings', 'get'>;
export type CapPeriod = 'day' | 'week';

export function Section({ title, children, danger }: { title: string; children: ReactNode; danger?: boolean }) {
  return (
    <Paper withBorder p="md" component="section" aria-label={title} style={danger ? { borderColor: 'var(--mantine-color-red-4)' } : undefined}>
      <Title order={2} size="h4" mb="sm" c={danger ? 'red' : undefined}>
        {title}
      </Title>
      {children}
    </Paper>
  );
}

/** PATCH /users/@me/projects/:id { name } (owners and admins; docs/roles.md). */
export function ProjectName({ project, may }: { project: Project; may: boolean }) {
  const { t } = useTranslation('settings');
  const qc = useQueryClient();
  const [name, setName] = useState(project.name);
  const rename = useMutation({
    meta: { success: t('project.renamed') },
    mutationFn: () => unwrap(api.PATCH('/users/@me/projects/{id}', { params: { path: { id: project.id } }, body: { name } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.projects.all() }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    rename.mutate();
  };
  return (
    <Section title={t('project.heading')}>
      <form onSubmit={submit} noValidate>
        <Group align="flex-start">
          <TextInput
            label={t('project.name')}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            disabled={!may}
            error={fieldError(rename.error, 'name')}
            w={320}
            description={may ? undefined : t('project.mayNotRename')}
          />
          {may ? (
            <Button type="submit" mt={25} loading={rename.isPending} disabled={name === project.name}>
              {t('project.rename')}
            </Button>
          ) : null}
        </Group>
        {rename.error && !fieldError(rename.error, 'name') ? <ErrorState error={rename.error} title={t('project.notRenamed')} /> : null}
        {rename.isSuccess ? (
          <Text size="sm" c="green" role="status" mt="xs">
            {t('project.renamedLine')}
          </Text>
        ) : null}
      </form>
    </Section>
  );
}

export const TIME_ZONES: string[] = (() => {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return ['UTC'];
  }
})();

/** GET and PATCH /settings: the sending policy. Each control is on or off (null); the 422's field errors show on their inputs. */
/**
 * A settings form a MEMBER may read but not change (PATCH /settings needs OWNER or ADMIN,
 * docs/roles.md): its fields are disabled and its Save button gives way to a line saying who may.
 */
export function ManagedForm({ may, onSubmit, children, save }: { may: boolean; onSubmit: (e: FormEvent) => void; children: ReactNode; save: ReactNode }) {
  const { t } = useTranslation('settings');
  return (
    <form onSubmit={onSubmit} noValidate>
      <fieldset disabled={!may} style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
        <Stack gap="md">
          {children}
          {may ? (
            save
          ) : (
            <Text size="sm" c="dimmed">
              {t('project.managedOnly')}
            </Text>
          )}
        </Stack>
      </fieldset>
    </form>
  );
}

export function Sending({ projectId, policy, may }: { projectId: string; policy: SendingPolicy; may: boolean }) {
  const { t } = useTranslation('settings');
  const qc = useQueryClient();
  const [timezone, setTimezone] = useState(policy.timezone);
  const [quiet, setQuiet] = useState(!!policy.quietHours);
  const [quietStart, setQuietStart] = useState(policy.quietHours?.start ?? '21:00');
  const [quietEnd, setQuietEnd] = useState(policy.quietHours?.end ?? '08:00');
  const [capped, setCapped] = useState(!!policy.frequencyCap);
  const [capMax, setCapMax] = useState<number | string>(policy.frequencyCap?.max ?? 3);
  const [capPer, setCapPer] = useState<CapPeriod>(policy.frequencyCap?.per ?? 'week');
  const [rate, setRate] = useState<number | string>(policy.sendRatePerSecond ?? '');
  const save = useMutation({
    meta: { success: t('sending.saved') },
    mutationFn: () =>
      unwrap(
        api.PATCH('/settings', {
          body: {
            timezone,
            quietHours: quiet ? { start: quietStart, end: quietEnd } : null,
            frequencyCap: capped ? { max: Number(capMax), per: capPer } : null,
            sendRatePerSecond: rate === '' ? null : Number(rate),
          },
        }),
      ),
    onSuccess: (saved) => qc.setQueryData(keys.settings(projectId), saved),
  });
  const err = (field: string) => fieldError(save.error, field);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <Section title={t('sending.heading')}>
      <ManagedForm may={may} onSubmit={submit} save={<SaveButton label={t('sending.save')} save={save} />}>
        <Select
          label={t('sending.timezone')}
          description={t('sending.timezoneHelp')}
          data={TIME_ZONES.includes(timezone) ? TIME_ZONES : [timezone, ...TIME_ZONES]}
          value={timezone}
          onChange={(v) => v && setTimezone(v)}
          searchable
          allowDeselect={false}
          error={err('timezone')}
          maw={360}
        />
        <Stack gap="xs">
          <Switch
            label={t('sending.quietHours')}
            aria-label={t('sending.quietHours')}
            description={t('sending.quietHelp')}
            checked={quiet}
            onChange={(e) => setQuiet(e.currentTarget.checked)}
          />
          {quiet ? (
            <Group>
              <TextInput
                label={t('sending.quietFrom')}
                placeholder={t('sending.timePlaceholder')}
                value={quietStart}
                onChange={(e) => setQuietStart(e.currentTarget.value)}
                error={err('quietHours.start') ?? err('quietHours')}
                w={150}
              />
              <TextInput
                label={t('sending.quietUntil')}
                placeholder={t('sending.timePlaceholder')}
                value={quietEnd}
                onChange={(e) => setQuietEnd(e.currentTarget.value)}
                error={err('quietHours.end')}
                w={150}
              />
            </Group>
          ) : null}
        </Stack>
        <Stack gap="xs">
          <Switch
            label={t('sending.frequencyCap')}
            aria-label={t('sending.frequencyCap')}
            description={t('sending.frequencyHelp')}
            checked={capped}
            onChange={(e) => setCapped(e.currentTarget.checked)}
          />
          {capped ? (
            <Group>
              <NumberInput
                label={t('sending.capMax')}
                min={1}
                max={1000}
                allowDecimal={false}
                value={capMax}
                onChange={setCapMax}
                error={err('frequencyCap.max') ?? err('frequencyCap')}
                w={150}
              />
              <Select
                label={t('sending.per')}
                data={[
                  { value: 'day', label: t('sending.day') },
                  { value: 'week', label: t('sending.week') },
                ]}
                value={capPer}
                onChange={(v) => v && setCapPer(v as CapPeriod)}
                allowDeselect={false}
                error={err('frequencyCap.per')}
                w={120}
              />
            </Group>
          ) : null}
        </Stack>
        <NumberInput
          label={t('sending.rate')}
          description={t('sending.rateHelp')}
          min={0}
          decimalScale={3}
          value={rate}
          onChange={setRate}
          error={err('sendRatePerSecond')}
          maw={360}
        />
        {save.error && !hasFieldErrors(save.error) ? <ErrorState error={save.error} title={t('notSaved')} /> : null}
      </ManagedForm>
    </Section>
  );
}

export type Retention = SendingPolicy['retention'];
/** The kinds a project keeps for a number of days, in the form's order (their words: retention.fields in the catalogue). */
export const RETENTION_FIELDS: Array<keyof Retention> = ['emailBodiesDays', 'eventsDays', 'inboundDays'];

/** PATCH /settings { retention }: days each kind is kept, empty keeps it (docs/privacy.md "Retention"); the hourly sweep removes the rest. */
export function RetentionSettings({ projectId, retention, may }: { projectId: string; retention: Retention; may: boolean }) {
  const { t } = useTranslation('settings');
  const qc = useQueryClient();
  const [days, setDays] = useState<Record<keyof Retention, number | string>>({
    emailBodiesDays: retention.emailBodiesDays ?? '',
    eventsDays: retention.eventsDays ?? '',
    inboundDays: retention.inboundDays ?? '',
  });
  const save = useMutation({
    meta: { success: t('retention.saved') },
    mutationFn: () =>
      unwrap(
        api.PATCH('/settings', {
          body: { retention: { emailBodiesDays: capOf(days.emailBodiesDays), eventsDays: capOf(days.eventsDays), inboundDays: capOf(days.inboundDays) } },
        }),
      ),
    onSuccess: (saved) => qc.setQueryData(keys.settings(projectId), saved),
  });
  return (
    <Section title={t('retention.heading')}>
      <ManagedForm
        may={may}
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
        save={<SaveButton label={t('retention.save')} save={save} />}
      >
        <Text size="sm" c="dimmed">
          {t('retention.intro')}
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          {RETENTION_FIELDS.map((key) => (
            <NumberInput
              key={key}
              label={t(`retention.fields.${key}.label`)}
              description={t(`retention.fields.${key}.description`)}
              placeholder={t('retention.keep')}
              min={1}
              max={3650}
              allowDecimal={false}
              value={days[key]}
              onChange={(v) => setDays((d) => ({ ...d, [key]: v }))}
              error={fieldError(save.error, `retention.${key}`)}
            />
          ))}
        </SimpleGrid>
        {save.error && !hasFieldErrors(save.error) ? <ErrorState error={save.error} title={t('notSaved')} /> : null}
      </ManagedForm>
    </Section>
  );
}
