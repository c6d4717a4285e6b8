import { useState, type FormEvent, type ReactNode } from 'react';
import { Button, Group, NumberInput, Paper, Select, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, type Project, ResponseOf, unwrap } from '../../api/client';
import { ErrorState } from '../States';
import { SaveButton } from '../SaveButton';

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
  const qc = useQueryClient();
  const [name, setName] = useState(project.name);
  const rename = useMutation({
    meta: { success: 'Project renamed' },
    mutationFn: () => unwrap(api.PATCH('/users/@me/projects/{id}', { params: { path: { id: project.id } }, body: { name } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['projects'] }),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    rename.mutate();
  };
  return (
    <Section title="Project">
      <form onSubmit={submit} noValidate>
        <Group align="flex-start">
          <TextInput
            label="Project name"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            disabled={!may}
            error={fieldError(rename.error, 'name')}
            w={320}
            description={may ? undefined : 'Owners and admins may rename the project'}
          />
          {may ? (
            <Button type="submit" mt={25} loading={rename.isPending} disabled={name === project.name}>
              Rename
            </Button>
          ) : null}
        </Group>
        {rename.error && !fieldError(rename.error, 'name') ? <ErrorState error={rename.error} title="Not renamed" /> : null}
        {rename.isSuccess ? (
          <Text size="sm" c="green" role="status" mt="xs">
            Renamed.
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
  return (
    <form onSubmit={onSubmit} noValidate>
      <fieldset disabled={!may} style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
        <Stack gap="md">
          {children}
          {may ? (
            save
          ) : (
            <Text size="sm" c="dimmed">
              Owners and admins change these settings.
            </Text>
          )}
        </Stack>
      </fieldset>
    </form>
  );
}

export function Sending({ projectId, policy, may }: { projectId: string; policy: SendingPolicy; may: boolean }) {
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
    meta: { success: 'Sending settings saved' },
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
    onSuccess: (saved) => qc.setQueryData(['settings', projectId], saved),
  });
  const err = (field: string) => fieldError(save.error, field);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <Section title="Sending">
      <ManagedForm may={may} onSubmit={submit} save={<SaveButton label="Save sending settings" save={save} />}>
        <Select
          label="Time zone"
          description="Quiet hours and daily caps count in this zone unless a contact has its own"
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
            label="Quiet hours"
            aria-label="Quiet hours"
            description="Marketing mail due inside them waits until they end"
            checked={quiet}
            onChange={(e) => setQuiet(e.currentTarget.checked)}
          />
          {quiet ? (
            <Group>
              <TextInput
                label="Quiet from"
                placeholder="HH:MM"
                value={quietStart}
                onChange={(e) => setQuietStart(e.currentTarget.value)}
                error={err('quietHours.start') ?? err('quietHours')}
                w={150}
              />
              <TextInput
                label="Quiet until"
                placeholder="HH:MM"
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
            label="Frequency cap"
            aria-label="Frequency cap"
            description="At most this many marketing emails per contact"
            checked={capped}
            onChange={(e) => setCapped(e.currentTarget.checked)}
          />
          {capped ? (
            <Group>
              <NumberInput
                label="Emails at most"
                min={1}
                max={1000}
                allowDecimal={false}
                value={capMax}
                onChange={setCapMax}
                error={err('frequencyCap.max') ?? err('frequencyCap')}
                w={150}
              />
              <Select
                label="Per"
                data={[
                  { value: 'day', label: 'day' },
                  { value: 'week', label: 'week' },
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
          label="Send rate (emails per second)"
          description="Empty: the server's default (SEND_RATE_PER_SECOND)"
          min={0}
          decimalScale={3}
          value={rate}
          onChange={setRate}
          error={err('sendRatePerSecond')}
          maw={360}
        />
        {save.error && !hasFieldErrors(save.error) ? <ErrorState error={save.error} title="Not saved" /> : null}
      </ManagedForm>
    </Section>
  );
}

export type Retention = SendingPolicy['retention'];
export const RETENTION_FIELDS: Array<{ key: keyof Retention; label: string; description: string }> = [
  {
    key: 'emailBodiesDays',
    label: 'Email content (days)',
    description: "Bodies, text parts, variables and attachments of sent emails; the emails' rows and stats stay",
  },
  { key: 'eventsDays', label: 'Events (days)', description: 'Tracked and service events (contact.unsubscribed stays); event filters then see only these days' },
  { key: 'inboundDays', label: 'Inbound mail (days)', description: 'Replies and bounce or complaint reports as received' },
];

/** PATCH /settings { retention }: days each kind is kept, empty keeps it (docs/privacy.md "Retention"); the hourly sweep removes the rest. */
export function RetentionSettings({ projectId, retention, may }: { projectId: string; retention: Retention; may: boolean }) {
  const qc = useQueryClient();
  const [days, setDays] = useState<Record<keyof Retention, number | string>>({
    emailBodiesDays: retention.emailBodiesDays ?? '',
    eventsDays: retention.eventsDays ?? '',
    inboundDays: retention.inboundDays ?? '',
  });
  const save = useMutation({
    meta: { success: 'Retention saved' },
    mutationFn: () =>
      unwrap(
        api.PATCH('/settings', {
          body: { retention: { emailBodiesDays: capOf(days.emailBodiesDays), eventsDays: capOf(days.eventsDays), inboundDays: capOf(days.inboundDays) } },
        }),
      ),
    onSuccess: (saved) => qc.setQueryData(['settings', projectId], saved),
  });
  return (
    <Section title="Retention">
      <ManagedForm
        may={may}
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
        save={<SaveButton label="Save retention" save={save} />}
      >
        <Text size="sm" c="dimmed">
          How long this project keeps what it accumulates. Empty keeps it; an hourly sweep removes what is older, and the audit log records what went.
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          {RETENTION_FIELDS.map((f) => (
            <NumberInput
              key={f.key}
              label={f.label}
              description={f.description}
              placeholder="Keep"
              min={1}
              max={3650}
              allowDecimal={false}
              value={days[f.key]}
              onChange={(v) => setDays((d) => ({ ...d, [f.key]: v }))}
              error={fieldError(save.error, `retention.${f.key}`)}
            />
          ))}
        </SimpleGrid>
        {save.error && !hasFieldErrors(save.error) ? <ErrorState error={save.error} title="Not saved" /> : null}
      </ManagedForm>
    </Section>
  );
}
