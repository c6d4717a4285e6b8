import { useMemo, useState } from 'react';
import { Anchor, Button, Group, NumberInput, Radio, Select, SimpleGrid, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, fieldError, unwrap } from '../../api/client';
import { useAppConfig } from '../../api/session';
import { DURATION_UNITS, type Campaign, type CampaignDraft, type DurationUnit, type Schedule } from '../../api/campaigns';
import { ErrorState } from '../States';
import { browserZone } from '../../api/dates';
import { SendTestButton } from '../SendTestButton';

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
        <TextInput
          label="From"
          description="The part before the @"
          required
          placeholder="news"
          value={draft.fromLocal}
          onChange={(e) => set({ fromLocal: e.currentTarget.value })}
          error={error}
          style={{ flex: 1 }}
        />
        {waived && !verified.length ? (
          <TextInput
            label="Domain"
            description="Any domain, with the development inbox"
            required
            placeholder="example.com"
            value={draft.fromDomain}
            onChange={(e) => set({ fromDomain: e.currentTarget.value })}
            style={{ flex: 1 }}
          />
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
          No verified domain yet:{' '}
          <Anchor component={Link} to={`/p/${projectId}/domains`}>
            add and verify one
          </Anchor>{' '}
          to send from it.
        </Text>
      ) : null}
      {domains.error ? <ErrorState error={domains.error} title="Domains not loaded" /> : null}
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

export function AbTestFields({ draft, set, errors }: { draft: CampaignDraft; set: (p: Partial<CampaignDraft>) => void; errors: unknown }) {
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
                <Button
                  variant="subtle"
                  color="red"
                  onClick={() => setAb({ subjects: ab.subjects.filter((_, j) => j !== i) })}
                  aria-label={`Remove subject ${String.fromCharCode(66 + i)}`}
                >
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
            <NumberInput
              label="Test group (%)"
              min={1}
              max={50}
              value={ab.testPercent}
              onChange={(v) => setAb({ testPercent: String(v) })}
              error={fieldError(errors, 'abTest.testPercent')}
            />
            <NumberInput
              label="Winner after"
              min={1}
              value={ab.amount}
              onChange={(v) => setAb({ amount: String(v) })}
              error={fieldError(errors, 'abTest.winnerAfter.amount') ?? fieldError(errors, 'abTest.winnerAfter')}
            />
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
export function SendTest({ save, disabled }: { save: () => Promise<Campaign>; disabled: boolean }) {
  return (
    <SendTestButton
      disabled={disabled}
      prefillMine={false}
      intro={
        'Saves your changes, then sends one email of this campaign with "[Test]" before its subject. A contact\'s address renders with its fields. The campaign\'s numbers do not move.'
      }
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
          <TextInput
            label="Date and time"
            type="datetime-local"
            required
            value={schedule.local}
            onChange={(e) => setSchedule({ ...schedule, local: e.currentTarget.value })}
            w={230}
          />
          <Select
            label="Time zone"
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

export function whenText(s: Schedule) {
  if (s.kind === 'now') return 'now';
  if (s.kind === 'local') return `at ${s.local.replace('T', ' ')} in each contact's time zone`;
  return `at ${s.local.replace('T', ' ')} (${s.timeZone})`;
}
