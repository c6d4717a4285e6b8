import { useState, type FormEvent, type ReactNode } from 'react';
import { Button, Group, List, Modal, NumberInput, Paper, Progress, Select, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, fieldError, hasFieldErrors, type Project, ResponseOf, unwrap } from '../api/client';
import { useAppConfig } from '../api/session';
import { useCurrentProject } from '../api/project';
import { manages } from '../routes';
import { ErrorState, Loading } from '../components/States';
import { RequireTwoFactorSwitch } from '../components/twoFactor/RequireTwoFactorSwitch';
import { SaveButton } from '../components/SaveButton';
import { BrandSettings } from '../components/emailEditor/BrandSettings';
import { dayWords, numberWords } from '../api/dates';

type SendingPolicy = ResponseOf<'/settings', 'get'>;
type CapPeriod = 'day' | 'week';

function Section({ title, children, danger }: { title: string; children: ReactNode; danger?: boolean }) {
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
function ProjectName({ project, may }: { project: Project; may: boolean }) {
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

const TIME_ZONES: string[] = (() => {
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
function ManagedForm({ may, onSubmit, children, save }: { may: boolean; onSubmit: (e: FormEvent) => void; children: ReactNode; save: ReactNode }) {
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

function Sending({ projectId, policy, may }: { projectId: string; policy: SendingPolicy; may: boolean }) {
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
      <ManagedForm
        may={may}
        onSubmit={submit}
        save={
          <SaveButton label="Save sending settings" save={save} />
        }
      >
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
            <Switch label="Quiet hours" aria-label="Quiet hours" description="Marketing mail due inside them waits until they end" checked={quiet} onChange={(e) => setQuiet(e.currentTarget.checked)} />
            {quiet ? (
              <Group>
                <TextInput label="Quiet from" placeholder="HH:MM" value={quietStart} onChange={(e) => setQuietStart(e.currentTarget.value)} error={err('quietHours.start') ?? err('quietHours')} w={150} />
                <TextInput label="Quiet until" placeholder="HH:MM" value={quietEnd} onChange={(e) => setQuietEnd(e.currentTarget.value)} error={err('quietHours.end')} w={150} />
              </Group>
            ) : null}
          </Stack>
          <Stack gap="xs">
            <Switch label="Frequency cap" aria-label="Frequency cap" description="At most this many marketing emails per contact" checked={capped} onChange={(e) => setCapped(e.currentTarget.checked)} />
            {capped ? (
              <Group>
                <NumberInput label="Emails at most" min={1} max={1000} allowDecimal={false} value={capMax} onChange={setCapMax} error={err('frequencyCap.max') ?? err('frequencyCap')} w={150} />
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

type Retention = SendingPolicy['retention'];
const RETENTION_FIELDS: Array<{ key: keyof Retention; label: string; description: string }> = [
  { key: 'emailBodiesDays', label: 'Email content (days)', description: "Bodies, text parts, variables and attachments of sent emails; the emails' rows and stats stay" },
  { key: 'eventsDays', label: 'Events (days)', description: 'Tracked and service events (contact.unsubscribed stays); event filters then see only these days' },
  { key: 'inboundDays', label: 'Inbound mail (days)', description: 'Replies and bounce or complaint reports as received' },
];

/** PATCH /settings { retention }: days each kind is kept, empty keeps it (docs/privacy.md "Retention"); the hourly sweep removes the rest. */
function RetentionSettings({ projectId, retention, may }: { projectId: string; retention: Retention; may: boolean }) {
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
        save={
          <SaveButton label="Save retention" save={save} />
        }
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

type Consumption = ResponseOf<'/users/@me/projects/{id}/billing-consumption', 'get'>;
const capOf = (v: number | string) => (v === '' ? null : Number(v));

/** Consumption of the month and its caps (billing on only); owners and admins set the caps (PUT billing-limits). */
function Billing({ projectId, may }: { projectId: string; may: boolean }) {
  const usage = useQuery({
    queryKey: ['billing-consumption', projectId],
    queryFn: () => unwrap(api.GET('/users/@me/projects/{id}/billing-consumption', { params: { path: { id: projectId } } })),
  });
  return (
    <Section title="Billing">
      {usage.isPending ? <Loading /> : null}
      {usage.error ? <ErrorState error={usage.error} /> : null}
      {usage.data ? <BillingUsage projectId={projectId} may={may} usage={usage.data} /> : null}
    </Section>
  );
}

function BillingUsage({ projectId, may, usage: u }: { projectId: string; may: boolean; usage: Consumption }) {
  const qc = useQueryClient();
  const [emails, setEmails] = useState<number | string>(u.emails.limit ?? '');
  const [contacts, setContacts] = useState<number | string>(u.contacts.limit ?? '');
  const save = useMutation({
    meta: { success: 'Caps saved' },
    mutationFn: () => unwrap(api.PUT('/users/@me/projects/{id}/billing-limits', { params: { path: { id: projectId } }, body: { emails: capOf(emails), contacts: capOf(contacts) } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['billing-consumption', projectId] }),
  });
  const row = (label: string, used: number, limit: number | null) => (
    <Stack gap={4}>
      <Text size="sm">
        {label}: {numberWords(used)} {limit === null ? '(no cap)' : `of ${numberWords(limit)}`}
      </Text>
      {limit ? <Progress value={Math.min(100, (100 * used) / limit)} aria-label={`${label} used`} color={used >= limit ? 'red' : 'indigo'} /> : null}
    </Stack>
  );
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        This month: {dayWords(u.period.start)} – {dayWords(u.period.end)}
      </Text>
      {row('Emails', u.emails.used, u.emails.limit)}
      {row('Contacts', u.contacts.used, u.contacts.limit)}
      {may ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
          noValidate
        >
          <Group align="flex-start">
            <NumberInput label="Monthly email cap" description="Empty: no cap" min={0} allowDecimal={false} value={emails} onChange={setEmails} error={fieldError(save.error, 'emails')} w={200} />
            <NumberInput label="Contact cap" description="Empty: no cap" min={0} allowDecimal={false} value={contacts} onChange={setContacts} error={fieldError(save.error, 'contacts')} w={200} />
            <Button type="submit" mt={45} loading={save.isPending}>
              Save caps
            </Button>
          </Group>
          {save.error && !hasFieldErrors(save.error) ? <ErrorState error={save.error} title="Caps not saved" /> : null}
        </form>
      ) : null}
    </Stack>
  );
}

/** A destructive action behind a dialog that asks for the project's name. */
function Confirmed({ label, confirm, title, what, name, run, pending, error, children }: {
  label: string;
  confirm: string;
  title: string;
  what: ReactNode;
  name: string;
  run: () => void;
  pending: boolean;
  error: unknown;
  children?: ReactNode;
}) {
  const [opened, setOpened] = useState(false);
  const [typed, setTyped] = useState('');
  return (
    <>
      <Button color="red" variant="light" onClick={() => setOpened(true)}>
        {label}
      </Button>
      <Modal
        opened={opened}
        onClose={() => {
          setOpened(false);
          setTyped('');
        }}
        title={title}
      >
        <Stack>
          {what}
          {children}
          <TextInput label={`Type the project name (${name}) to confirm`} value={typed} onChange={(e) => setTyped(e.currentTarget.value)} />
          {error ? <ErrorState error={error} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setOpened(false)}>
              Cancel
            </Button>
            <Button color="red" disabled={typed !== name} loading={pending} onClick={run}>
              {confirm}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

/** Reset (wipe the data) and delete: owners only (docs/roles.md), each confirmed with the project's name. */
function DangerZone({ project }: { project: Project }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const reset = useMutation({
    meta: { success: 'Project reset' },
    mutationFn: () => unwrap(api.POST('/users/@me/projects/{id}/reset', { params: { path: { id: project.id } } })),
    onSuccess: () => qc.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'projects' && q.queryKey[0] !== 'me' && q.queryKey[0] !== 'config' }),
  });
  const remove = useMutation({
    meta: { success: 'Project deleted' },
    mutationFn: () => unwrap(api.DELETE('/users/@me/projects/{id}', { params: { path: { id: project.id } } })),
    onSuccess: () => {
      // Out of the cache first, so `/` does not send the user back to the project just deleted.
      qc.setQueryData<Project[]>(['projects'], (list) => list?.filter((p) => p.id !== project.id));
      void navigate('/', { replace: true });
      return qc.invalidateQueries({ queryKey: ['projects'] });
    },
  });
  const deleted = reset.data ? Object.values(reset.data.deleted).reduce((a, b) => a + b, 0) : 0;
  return (
    <Section title="Danger zone" danger>
      <Stack>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Text size="sm">Reset: delete every contact, event, template, campaign, segment, workflow and email of the project, and cancel its running workflows. Keys, members, domains and billing stay.</Text>
          <Group justify="flex-end">
            <Confirmed
              label="Reset project"
              confirm="Wipe the data"
              title="Reset this project?"
              name={project.name}
              what={<Text>All of the project's data is deleted for good. This cannot be undone.</Text>}
              run={() => reset.mutate()}
              pending={reset.isPending}
              error={reset.error}
            >
              {reset.data ? (
                <Text c="green" role="status">
                  Reset: {numberWords(deleted)} rows deleted, {reset.data.cancelledExecutions} executions cancelled.
                </Text>
              ) : null}
            </Confirmed>
          </Group>
          <Text size="sm">Delete: the project, its keys, its data and its uploaded images, for every member.</Text>
          <Group justify="flex-end">
            <Confirmed
              label="Delete project"
              confirm="Delete for good"
              title="Delete this project?"
              name={project.name}
              what={
                <List size="sm">
                  <List.Item>its API keys stop working at once;</List.Item>
                  <List.Item>its data, members and images are deleted for good.</List.Item>
                </List>
              }
              run={() => remove.mutate()}
              pending={remove.isPending}
              error={remove.error}
            />
          </Group>
        </SimpleGrid>
      </Stack>
    </Section>
  );
}

export default function Settings() {
  const { projectId, project } = useCurrentProject();
  const config = useAppConfig();
  const policy = useQuery({ queryKey: ['settings', projectId], queryFn: () => unwrap(api.GET('/settings')) });
  if (!project) return <Loading />;
  const may = manages(project.role);
  return (
    <Stack>
      <Title order={1} size="h2">
        Settings
      </Title>
      <ProjectName key={project.id} project={project} may={may} />
      {policy.isPending ? <Loading /> : null}
      {policy.error ? <ErrorState error={policy.error} /> : null}
      {policy.data ? <Sending projectId={projectId} policy={policy.data} may={may} /> : null}
      {policy.data ? <RetentionSettings projectId={projectId} retention={policy.data.retention} may={may} /> : null}
      <BrandSettings projectId={projectId} may={may} />
      {config.data?.billing?.enabled ? <Billing projectId={projectId} may={may} /> : null}
      {project.role === 'OWNER' ? <RequireTwoFactorSwitch project={project} /> : null}
      {project.role === 'OWNER' ? <DangerZone project={project} /> : null}
    </Stack>
  );
}
