import { useMemo, useState, type FormEvent } from 'react';
import {
  Alert,
  Anchor,
  Button,
  Group,
  Modal,
  NumberInput,
  Paper,
  Radio,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { api, ApiError, fieldError, hasFieldErrors, unwrap } from '../api/client';
import { useAppConfig } from '../api/session';
import { bodyOf, contactsText, draftOf, DURATION_UNITS, sendBodyOf, splitAddress, type Campaign, type CampaignDraft, type DurationUnit, type Schedule } from '../api/campaigns';
import { TEMPLATE_TYPES } from '../api/templates';
import { ErrorState } from '../components/States';
import { EmailPreview } from '../components/EmailPreview';
import { ContentChecks } from '../components/emailEditor/ContentChecks';
import { CampaignContent } from '../components/emailEditor/CampaignContent';
import { conditionErrors, newTree } from '../components/FilterBuilder';
import { AudienceFields } from '../components/campaigns/AudienceFields';
import { browserZone } from '../api/dates';
import { SendTestButton } from '../components/SendTestButton';

const zones = () => {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return ['UTC'];
  }
};

/** The project's verified sender domains (GET /domains/project/:id); with the development inbox any domain may be typed. */
function SenderFields({ projectId, draft, set, error }: { projectId: string; draft: CampaignDraft; set: (p: Partial<CampaignDraft>) => void; error?: string }) {
  const config = useAppConfig();
  const domains = useQuery({
    queryKey: ['domains', projectId],
    queryFn: () => unwrap(api.GET('/domains/project/{projectId}', { params: { path: { projectId } } })),
  });
  const verified = (domains.data ?? []).filter((d) => d.status === 'VERIFIED').map((d) => d.domain);
  const waived = config.data?.email.senderCheckWaived;
  const data = draft.fromDomain && !verified.includes(draft.fromDomain) ? [...verified, draft.fromDomain] : verified;
  return (
    <Stack gap={4}>
      <Group gap="xs" align="flex-start" wrap="nowrap">
        <TextInput label="From" description="The part before the @" required placeholder="news" value={draft.fromLocal} onChange={(e) => set({ fromLocal: e.currentTarget.value })} error={error} style={{ flex: 1 }} />
        {waived && !verified.length ? (
          <TextInput label="Domain" description="Any domain, with the development inbox" required placeholder="example.com" value={draft.fromDomain} onChange={(e) => set({ fromDomain: e.currentTarget.value })} style={{ flex: 1 }} />
        ) : (
          <Select
            label="Domain"
            description="The project's verified domains"
            required
            placeholder={domains.isPending ? 'Loading…' : 'Pick a domain'}
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
          No verified domain yet: <Anchor component={Link} to={`/p/${projectId}/domains`}>add and verify one</Anchor> to send from it.
        </Text>
      ) : null}
      {domains.error ? <ErrorState error={domains.error} title="Domains not loaded" /> : null}
    </Stack>
  );
}

/** "Start from a template": copies a template's content into the campaign (campaigns keep their own copy). */
function TemplatePicker({ projectId, onPick }: { projectId: string; onPick: (t: { subject: string; body: string; text: string | null; from: string; fromName: string | null; replyTo: string | null }) => void }) {
  const templates = useQuery({
    queryKey: ['templates', projectId, 'picker'],
    queryFn: () => unwrap(api.GET('/templates', { params: { query: { page: 1, pageSize: 100, sort: 'updatedAt', dir: 'desc' } } })),
  });
  const [loading, setLoading] = useState(false);
  const [picked, setPicked] = useState<string | null>(null);
  const [problem, setProblem] = useState<unknown>(null);
  return (
    <>
      <Select
        label="Start from a template"
        description="Copies its subject, body and sender into this campaign; later edits to the template do not change it"
        placeholder={templates.isPending ? 'Loading…' : templates.data?.data.length ? 'Pick a template' : 'No templates yet'}
        data={(templates.data?.data ?? []).map((t) => ({ value: t.id, label: t.name }))}
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
      {problem ? <ErrorState error={problem} title="Template not loaded" /> : null}
    </>
  );
}

function AbTestFields({ draft, set, errors }: { draft: CampaignDraft; set: (p: Partial<CampaignDraft>) => void; errors: unknown }) {
  const ab = draft.ab;
  const setAb = (p: Partial<CampaignDraft['ab']>) => set({ ab: { ...ab, ...p } });
  return (
    <Stack gap="xs">
      <Switch label="A/B test the subject" checked={ab.on} onChange={(e) => setAb({ on: e.currentTarget.checked })} />
      {ab.on ? (
        <>
          <Text size="sm" c="dimmed">
            A test group is split evenly across the subjects (the one above is A); after the wait, the subject with the best rate goes to everyone else.
          </Text>
          {ab.subjects.map((s, i) => (
            <Group key={i} gap="xs" align="flex-end" wrap="nowrap">
              <TextInput
                label={`Subject ${String.fromCharCode(66 + i)}`}
                value={s}
                onChange={(e) => {
                  const value = e.currentTarget.value;
                  setAb({ subjects: ab.subjects.map((x, j) => (j === i ? value : x)) });
                }}
                error={fieldError(errors, `abTest.subjects.${i + 1}`)}
                style={{ flex: 1 }}
              />
              {ab.subjects.length > 1 ? (
                <Button variant="subtle" color="red" onClick={() => setAb({ subjects: ab.subjects.filter((_, j) => j !== i) })} aria-label={`Remove subject ${String.fromCharCode(66 + i)}`}>
                  Remove
                </Button>
              ) : null}
            </Group>
          ))}
          {ab.subjects.length < 4 ? (
            <Group>
              <Button size="xs" variant="light" onClick={() => setAb({ subjects: [...ab.subjects, ''] })}>
                Add subject
              </Button>
            </Group>
          ) : null}
          {fieldError(errors, 'abTest.subjects') ? (
            <Text size="sm" c="red" role="alert">
              {fieldError(errors, 'abTest.subjects')}
            </Text>
          ) : null}
          <SimpleGrid cols={{ base: 1, sm: 4 }} spacing="xs">
            <NumberInput label="Test group (%)" min={1} max={50} value={ab.testPercent} onChange={(v) => setAb({ testPercent: String(v) })} error={fieldError(errors, 'abTest.testPercent')} />
            <NumberInput label="Winner after" min={1} value={ab.amount} onChange={(v) => setAb({ amount: String(v) })} error={fieldError(errors, 'abTest.winnerAfter.amount') ?? fieldError(errors, 'abTest.winnerAfter')} />
            <Select label="Unit" data={DURATION_UNITS} value={ab.unit} onChange={(v) => v && setAb({ unit: v as DurationUnit })} allowDeselect={false} />
            <Select
              label="Winning metric"
              data={[
                { value: 'opens', label: 'Open rate' },
                { value: 'clicks', label: 'Click rate' },
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
function SendTest({ save, disabled }: { save: () => Promise<Campaign>; disabled: boolean }) {
  return (
    <SendTestButton
      disabled={disabled}
      prefillMine={false}
      intro={'Saves your changes, then sends one email of this campaign with "[Test]" before its subject. A contact\'s address renders with its fields. The campaign\'s numbers do not move.'}
      toField="email"
      doneText={(_to, answer) => `${(answer as { message: string }).message}.`}
      send={async (to) => {
        const saved = await save();
        return unwrap(api.POST('/campaigns/{id}/test', { params: { path: { id: saved.id } }, body: { email: to } }));
      }}
    />
  );
}

function ScheduleFields({ schedule, setSchedule }: { schedule: Schedule; setSchedule: (s: Schedule) => void }) {
  const zoneList = useMemo(zones, []);
  const local = schedule.kind === 'now' ? '' : schedule.local;
  return (
    <Stack gap="xs">
      <Radio.Group
        label="When"
        value={schedule.kind}
        onChange={(k) => setSchedule(k === 'now' ? { kind: 'now' } : k === 'at' ? { kind: 'at', local, timeZone: browserZone() } : { kind: 'local', local })}
      >
        <Group mt={4}>
          <Radio value="now" label="Now" />
          <Radio value="at" label="At a date and time" />
          <Radio value="local" label="At a local time per contact" />
        </Group>
      </Radio.Group>
      {schedule.kind === 'at' ? (
        <Group gap="xs" align="flex-start">
          <TextInput label="Date and time" type="datetime-local" required value={schedule.local} onChange={(e) => setSchedule({ ...schedule, local: e.currentTarget.value })} w={230} />
          <Select label="Time zone" data={zoneList} searchable value={schedule.timeZone} onChange={(z) => z && setSchedule({ ...schedule, timeZone: z })} allowDeselect={false} w={240} />
        </Group>
      ) : null}
      {schedule.kind === 'local' ? (
        <TextInput
          label="Local date and time"
          description="Each contact gets it at this time on their own clock (their data.timezone, else the project's time zone); those whose moment has passed get it at once"
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

function whenText(s: Schedule) {
  if (s.kind === 'now') return 'now';
  if (s.kind === 'local') return `at ${s.local.replace('T', ' ')} in each contact's time zone`;
  return `at ${s.local.replace('T', ' ')} (${s.timeZone})`;
}

/**
 * The composer: a new campaign (`/campaigns/new`) or a DRAFT. Saving creates or replaces it (POST or
 * PUT /campaigns, the same body); "Send test", "Send now" and "Schedule" save first. Sending asks
 * first, naming how many contacts the audience holds now (GET /campaigns/:id/audience).
 */
export function CampaignEditor({ projectId, campaign }: { projectId: string; campaign: Campaign | null }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [draft, setDraft] = useState<CampaignDraft>(() => draftOf(campaign, newTree()));
  const [saved, setSaved] = useState(() => JSON.stringify(bodyOf(draftOf(campaign, newTree()))));
  const [schedule, setSchedule] = useState<Schedule>({ kind: 'now' });
  const [confirming, setConfirming] = useState<{ count: number; schedule: Schedule } | null>(null);
  const set = (p: Partial<CampaignDraft>) => setDraft((d) => ({ ...d, ...p }));
  const dirty = !campaign || JSON.stringify(bodyOf(draft)) !== saved;

  const save = useMutation({
    meta: { success: 'Campaign saved' },
    mutationFn: async (): Promise<Campaign> => {
      const body = bodyOf(draft);
      if (campaign && JSON.stringify(body) === saved) return campaign;
      const row = campaign
        ? await unwrap(api.PUT('/campaigns/{id}', { params: { path: { id: campaign.id } }, body }))
        : (await unwrap(api.POST('/campaigns', { body }))).data;
      setSaved(JSON.stringify(body));
      qc.setQueryData(['campaign', projectId, row.id], row);
      await qc.invalidateQueries({ queryKey: ['campaigns', projectId] });
      return row;
    },
    onSuccess: (row) => {
      if (!campaign) navigate(`/p/${projectId}/campaigns/${row.id}`, { replace: true });
    },
  });

  /** Saves, then counts the audience as sending would, and asks. */
  const prepare = useMutation({
    mutationFn: async (s: Schedule) => {
      const row = await save.mutateAsync();
      const { count } = await unwrap(api.GET('/campaigns/{id}/audience', { params: { path: { id: row.id } } }));
      return { count, schedule: s };
    },
    onSuccess: setConfirming,
  });
  const send = useMutation({
    mutationFn: (s: Schedule) => unwrap(api.POST('/campaigns/{id}/send', { params: { path: { id: campaign!.id } }, body: sendBodyOf(s) })),
    onSuccess: async () => {
      setConfirming(null);
      await Promise.all([qc.invalidateQueries({ queryKey: ['campaign', projectId, campaign!.id] }), qc.invalidateQueries({ queryKey: ['campaigns', projectId] })]);
    },
  });

  const errorOf = (field: string) => fieldError(save.error, field);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const scheduleReady = schedule.kind !== 'now' && !!schedule.local;
  const otherSaveError = save.error && !hasFieldErrors(save.error);
  const treeProblem = save.error instanceof ApiError && Object.keys(conditionErrors(save.error, 'audienceCondition')).length > 0;

  return (
    <Stack>
      <Group justify="space-between" align="flex-end">
        <div>
          <Anchor component={Link} to={`/p/${projectId}/campaigns`} size="sm">
            ← Campaigns
          </Anchor>
          <Title order={1} size="h2">
            {campaign ? campaign.name : 'New campaign'}
          </Title>
          {campaign ? (
            <Text size="sm" c="dimmed">
              Draft{dirty ? ' · unsaved changes' : ''}
            </Text>
          ) : null}
        </div>
        {campaign ? <SendTest save={() => save.mutateAsync()} disabled={save.isPending} /> : null}
      </Group>
      <form onSubmit={submit} noValidate>
        <Stack>
          <SimpleGrid cols={{ base: 1, lg: 2 }} spacing="md">
            <Stack>
              <Paper withBorder p="md">
                <Stack gap="sm">
                  <Title order={2} size="h4">
                    Message
                  </Title>
                  <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                    <TextInput label="Name" description="Internal, never sent" required value={draft.name} onChange={(e) => set({ name: e.currentTarget.value })} error={errorOf('name')} />
                    <Select
                      label="Type"
                      data={TEMPLATE_TYPES.map((t) => ({ value: t, label: t.charAt(0) + t.slice(1).toLowerCase() }))}
                      value={draft.type}
                      onChange={(v) => v && set({ type: v as CampaignDraft['type'] })}
                      allowDeselect={false}
                      error={errorOf('type')}
                    />
                  </SimpleGrid>
                  <SenderFields projectId={projectId} draft={draft} set={set} error={errorOf('from')} />
                  <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
                    <TextInput label="From name" value={draft.fromName} onChange={(e) => set({ fromName: e.currentTarget.value })} error={errorOf('fromName')} />
                    <TextInput label="Reply-to" type="email" value={draft.replyTo} onChange={(e) => set({ replyTo: e.currentTarget.value })} error={errorOf('replyTo')} />
                  </SimpleGrid>
                  <TemplatePicker
                    projectId={projectId}
                    onPick={(t) => {
                      const [fromLocal, fromDomain] = splitAddress(t.from);
                      set({ subject: t.subject, body: t.body, text: t.text ?? '', fromLocal, fromDomain, fromName: t.fromName ?? '', replyTo: t.replyTo ?? '' });
                    }}
                  />
                  <TextInput label="Subject" required value={draft.subject} onChange={(e) => set({ subject: e.currentTarget.value })} error={errorOf('subject') ?? errorOf('abTest.subjects.0')} />
                  <AbTestFields draft={draft} set={set} errors={save.error} />
                  <CampaignContent projectId={projectId} draft={draft} set={set} errorOf={errorOf} />
                  <Textarea
                    label="Plain text"
                    description="Optional: the text/plain part's own Liquid source; left empty, it is generated from the HTML"
                    value={draft.text}
                    onChange={(e) => set({ text: e.currentTarget.value })}
                    error={errorOf('text')}
                    autosize
                    minRows={2}
                    maxRows={10}
                    spellCheck={false}
                    styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
                  />
                </Stack>
              </Paper>
              <Paper withBorder p="md">
                <Stack gap="sm">
                  <Title order={2} size="h4">
                    Audience
                  </Title>
                  <AudienceFields projectId={projectId} draft={draft} set={set} errors={save.error} />
                  {treeProblem ? (
                    <Alert color="red" role="alert" p="xs">
                      The audience filter is refused; see the marked filters.
                    </Alert>
                  ) : null}
                </Stack>
              </Paper>
            </Stack>
            <Stack>
              <EmailPreview projectId={projectId} subject={draft.subject} body={draft.body} document={draft.editor === 'blocks' ? draft.document : null} text={draft.text || null} />
              <Paper withBorder p="md">
                <Stack gap="sm">
                  <Title order={2} size="h4">
                    Delivery
                  </Title>
                  <NumberInput
                    label="Send rate (emails per minute)"
                    description="Optional: paces the hand-over, e.g. while a new domain warms up; empty: as fast as the project's send rate allows"
                    min={1}
                    allowDecimal={false}
                    value={draft.sendRate}
                    onChange={(v) => set({ sendRate: String(v) })}
                    error={errorOf('sendRatePerMinute')}
                  />
                  <Switch label="Archive" description="Show in the public archive" checked={draft.archive} onChange={(e) => set({ archive: e.currentTarget.checked })} />
                  {campaign ? (
                    <>
                      <ScheduleFields schedule={schedule} setSchedule={setSchedule} />
                      <Group>
                        <Button onClick={() => prepare.mutate({ kind: 'now' })} loading={prepare.isPending && prepare.variables?.kind === 'now'}>
                          Send now
                        </Button>
                        <Button variant="light" disabled={!scheduleReady} onClick={() => prepare.mutate(schedule)} loading={prepare.isPending && prepare.variables?.kind !== 'now'}>
                          Schedule
                        </Button>
                      </Group>
                      {prepare.error && !save.error ? <ErrorState error={prepare.error} title="Not sent" /> : null}
                    </>
                  ) : (
                    <Text size="sm" c="dimmed">
                      Save the draft to test-send, send or schedule it.
                    </Text>
                  )}
                </Stack>
              </Paper>
            </Stack>
          </SimpleGrid>
          {otherSaveError ? <ErrorState error={save.error} title="Not saved" /> : null}
          {hasFieldErrors(save.error) ? (
            <Text size="sm" c="red" role="alert">
              Not saved: see the marked fields.
            </Text>
          ) : null}
          <Group justify="flex-end">
            {save.isSuccess && campaign && !dirty ? (
              <Text size="sm" c="green" role="status">
                Saved.
              </Text>
            ) : null}
            <Button type="submit" loading={save.isPending} disabled={!dirty}>
              {campaign ? 'Save' : 'Save draft'}
            </Button>
          </Group>
        </Stack>
      </form>
      <Modal opened={!!confirming} onClose={() => setConfirming(null)} title={confirming?.schedule.kind === 'now' ? 'Send this campaign?' : 'Schedule this campaign?'}>
        {confirming ? (
          <Stack>
            <Text data-testid="send-confirmation">
              {confirming.count
                ? `${draft.name} goes to ${contactsText(confirming.count)} ${whenText(confirming.schedule)}.`
                : `${draft.name}'s audience holds no contact now: nothing would be sent.`}
            </Text>
            {confirming.schedule.kind !== 'now' ? (
              <Text size="sm" c="dimmed">
                Counted now; the audience is taken again when sending starts.
              </Text>
            ) : null}
            <ContentChecks projectId={projectId} subject={draft.subject} body={draft.body} document={draft.editor === 'blocks' ? draft.document : null} text={draft.text || null} type={draft.type} />
            {send.error ? <ErrorState error={send.error} title="Not sent" /> : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setConfirming(null)}>
                Cancel
              </Button>
              <Button onClick={() => send.mutate(confirming.schedule)} loading={send.isPending}>
                {confirming.schedule.kind === 'now' ? `Send to ${contactsText(confirming.count)}` : `Schedule for ${contactsText(confirming.count)}`}
              </Button>
            </Group>
          </Stack>
        ) : null}
      </Modal>
    </Stack>
  );
}
