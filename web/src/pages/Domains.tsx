import { useState, type FormEvent } from 'react';
import { Alert, Badge, Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, ResponseOf, unwrap } from '../api/client';
import { useAppConfig } from '../api/session';
import { useCurrentProject } from '../api/project';
import { manages } from '../routes';
import { DnsRecordsTable } from '../components/DnsRecordsTable';
import { Empty, ErrorState, Loading } from '../components/States';
import { TrackingDomainSection } from '../components/TrackingDomain';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { momentWords } from '../api/dates';

type Domain = ResponseOf<'/domains/project/{projectId}', 'get'>[number];

const when = (iso: string | null) => (iso ? momentWords(iso) : 'never');

const RECORD_NAMES: Record<string, string> = { ownership: 'ownership', spf: 'SPF', dmarc: 'DMARC', dkim: 'DKIM', inbound: 'inbound MX', bounce: 'bounce MX' };
const names = (rs: Domain['records']) => rs.map((r) => RECORD_NAMES[r.purpose] ?? r.purpose).join(', ');

/** What "Verify now" found, in a sentence: the records found, the ones still missing, and what that means for sending. */
function checkOutcome(d: Domain): string {
  const found = d.records.filter((r) => r.valid);
  const missingRequired = d.records.filter((r) => r.required && !r.valid);
  const missingOptional = d.records.filter((r) => !r.required && !r.valid);
  const head = `Checked just now: ${found.length} of ${d.records.length} records found.`;
  const optional = missingOptional.length ? ` Recommended but not found: ${names(missingOptional)}.` : '';
  if (d.status === 'VERIFIED' && !missingRequired.length) return `${head} Every required record is in place: mail can be sent from ${d.domain}.${optional}`;
  if (d.status === 'VERIFIED')
    return `${head} ${d.domain} stays verified, but these required records are no longer found: ${names(missingRequired)}.${optional}`;
  return `${head} Still missing: ${names(missingRequired)}. ${d.domain} stays pending until they are found; the reason is shown beside each record.${optional}`;
}

function DomainCard({ domain, projectId, may }: { domain: Domain; projectId: string; may: boolean }) {
  const qc = useQueryClient();
  const verify = useMutation({
    mutationFn: () => unwrap(api.GET('/domains/{id}/verify', { params: { path: { id: domain.id } } })),
    onSuccess: (checked) => {
      setOutcome(checkOutcome(checked));
      return qc.invalidateQueries({ queryKey: ['domains', projectId] });
    },
  });
  const [outcome, setOutcome] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  const remove = useMutation({
    meta: { success: 'Domain deleted' },
    mutationFn: () => unwrap(api.DELETE('/domains/{id}', { params: { path: { id: domain.id } } })),
    onSuccess: async () => {
      setAsking(false);
      await Promise.all([qc.invalidateQueries({ queryKey: ['domains', projectId] }), qc.invalidateQueries({ queryKey: ['setup-state', projectId] })]);
    },
  });
  return (
    <Paper withBorder p="md" component="section" aria-label={domain.domain}>
      <Group justify="space-between" mb="sm">
        <Group>
          <Title order={2} size="h4">
            {domain.domain}
          </Title>
          <Badge color={domain.status === 'VERIFIED' ? 'green' : 'yellow'} data-testid="domain-status">
            {domain.status === 'VERIFIED' ? 'Verified' : 'Pending'}
          </Badge>
        </Group>
        <Group>
          <Text size="sm" c="dimmed">
            Last check: {when(domain.lastCheckedAt)}
          </Text>
          <Button
            size="xs"
            onClick={() => {
              setOutcome(null);
              verify.mutate();
            }}
            loading={verify.isPending}
          >
            Verify now
          </Button>
          {may ? (
            <Button
              size="xs"
              color="red"
              variant="light"
              onClick={() => {
                remove.reset();
                setAsking(true);
              }}
            >
              Delete domain
            </Button>
          ) : null}
        </Group>
      </Group>
      {verify.error ? <ErrorState error={verify.error} title="The check did not run" /> : null}
      {outcome ? (
        <Alert role="status" color={domain.status === 'VERIFIED' ? 'green' : 'yellow'} mb="sm" data-testid="verify-outcome">
          {outcome}
        </Alert>
      ) : null}
      <Text size="sm" mb="xs">
        Publish these DNS records at your DNS provider, then verify.
      </Text>
      <DnsRecordsTable label={`DNS records of ${domain.domain}`} records={domain.records} detailed checked={!!domain.lastCheckedAt} />
      <ConfirmDialog
        opened={asking}
        title={`Delete ${domain.domain}?`}
        message={
          <>
            Sender addresses at {domain.domain} stop being accepted as soon as it is deleted. To send from it again, add it again and publish the DNS records it
            then lists.
          </>
        }
        confirmLabel="Delete domain"
        confirmColor="red"
        loading={remove.isPending}
        error={remove.error}
        errorTitle="The domain was not deleted"
        onConfirm={() => remove.mutate()}
        onCancel={() => setAsking(false)}
      />
    </Paper>
  );
}

export default function Domains() {
  const { projectId, project } = useCurrentProject();
  const may = manages(project?.role);
  const config = useAppConfig();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const domains = useQuery({
    queryKey: ['domains', projectId],
    queryFn: () => unwrap(api.GET('/domains/project/{projectId}', { params: { path: { projectId } } })),
  });
  const add = useMutation({
    meta: { success: 'Domain added' },
    mutationFn: (domain: string) => unwrap(api.POST('/domains', { body: { domain } })),
    onSuccess: () => {
      setName('');
      return Promise.all([qc.invalidateQueries({ queryKey: ['domains', projectId] }), qc.invalidateQueries({ queryKey: ['setup-state', projectId] })]);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate(name.trim());
  };
  return (
    <Stack>
      <Title order={1} size="h2">
        Domains
      </Title>
      {config.data?.email.senderCheckWaived ? (
        <Text size="sm" c="dimmed">
          With the development inbox any sender works; domains keep their true DNS status.
        </Text>
      ) : null}
      {may ? (
        <Paper withBorder p="md">
          <form onSubmit={submit}>
            <Group align="flex-end">
              <TextInput
                label="Domain"
                placeholder="mail.example.com"
                required
                value={name}
                onChange={(e) => setName(e.currentTarget.value)}
                error={fieldError(add.error, 'domain')}
                w={300}
              />
              <Button type="submit" loading={add.isPending}>
                Add domain
              </Button>
            </Group>
          </form>
          {add.error && !hasFieldErrors(add.error) ? <ErrorState error={add.error} title="The domain was not added" /> : null}
        </Paper>
      ) : (
        <Text size="sm" c="dimmed">
          Owners and admins add and remove domains; your role ({project?.role ?? 'unknown'}) may see them and check their DNS.
        </Text>
      )}
      {domains.isPending ? <Loading /> : null}
      {domains.error ? <ErrorState error={domains.error} /> : null}
      {domains.data && !domains.data.length ? <Empty>No domains yet: add the domain you send from.</Empty> : null}
      {domains.data?.map((d) => (
        <DomainCard key={d.id} domain={d} projectId={projectId} may={may} />
      ))}
      <TrackingDomainSection />
    </Stack>
  );
}
