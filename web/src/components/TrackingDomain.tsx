import { useState, type FormEvent } from 'react';
import { Badge, Button, Code, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, fieldError, ResponseOf, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { ConfirmDialog } from './ConfirmDialog';
import { DnsRecordsTable } from './DnsRecordsTable';
import { ErrorState, Loading } from './States';
import { momentWords } from '../api/dates';

type TrackingDomainOut = ResponseOf<'/tracking-domain', 'get'>;

const when = (iso: string | null) => (iso ? momentWords(iso) : 'never');

/**
 * The project's own tracking domain (docs/tracking.md "Your own tracking domain"): the records to
 * publish, their status, "Check", and the form to set or remove it (owners and admins).
 */
export function TrackingDomainSection() {
  const { projectId, project } = useCurrentProject();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [confirmRemove, setConfirmRemove] = useState(false);
  const key = ['tracking-domain', projectId];
  const mayChange = project?.role !== 'MEMBER';
  const current = useQuery({
    queryKey: key,
    // No tracking domain set is a 404: shown as the form, not as an error.
    queryFn: async (): Promise<TrackingDomainOut | null> => {
      try {
        return await unwrap(api.GET('/tracking-domain'));
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
  });
  const refresh = () => qc.invalidateQueries({ queryKey: key });
  const set = useMutation({
    meta: { success: 'Tracking domain saved' },
    mutationFn: (domain: string) => unwrap(api.PUT('/tracking-domain', { body: { domain } })),
    onSuccess: () => {
      setName('');
      return refresh();
    },
  });
  const check = useMutation({
    mutationFn: () => unwrap(api.POST('/tracking-domain/check')),
    onSuccess: refresh,
  });
  const remove = useMutation({
    meta: { success: 'Tracking domain removed' },
    mutationFn: () => unwrap(api.DELETE('/tracking-domain')),
    onSuccess: () => {
      setConfirmRemove(false);
      return refresh();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    set.mutate(name.trim());
  };
  const domain = current.data;

  return (
    <Paper withBorder p="md" component="section" aria-label="Tracking domain">
      <Stack gap="sm">
        <Group justify="space-between">
          <Group>
            <Title order={2} size="h4">
              Tracking domain
            </Title>
            {domain ? (
              <Badge color={domain.status === 'VERIFIED' ? 'green' : 'yellow'} data-testid="tracking-domain-status">
                {domain.status === 'VERIFIED' ? 'Verified' : 'Pending'}
              </Badge>
            ) : null}
          </Group>
          {domain ? (
            <Group>
              <Text size="sm" c="dimmed">
                Last check: {when(domain.lastCheckedAt)}
              </Text>
              <Button size="xs" onClick={() => check.mutate()} loading={check.isPending}>
                Check
              </Button>
              {mayChange ? (
                <Button size="xs" variant="light" color="red" onClick={() => setConfirmRemove(true)}>
                  Remove tracking domain
                </Button>
              ) : null}
            </Group>
          ) : null}
        </Group>
        <Text size="sm">
          Open pixels and tracked links use the shared tracking host unless you set a domain of your own. Once it is verified, your mail's links point at it,
          and links in old mail keep working there.
        </Text>
        {current.isPending ? <Loading /> : null}
        {current.error ? <ErrorState error={current.error} /> : null}
        {check.error ? <ErrorState error={check.error} title="The check did not run" /> : null}
        <ConfirmDialog
          opened={confirmRemove}
          title="Remove the tracking domain?"
          message="Mail sent from now on uses the shared tracking host. Setting the domain again needs a new ownership record."
          confirmLabel="Remove"
          confirmColor="red"
          loading={remove.isPending}
          onConfirm={() => remove.mutate()}
          onCancel={() => setConfirmRemove(false)}
          error={remove.error}
          errorTitle="The tracking domain was not removed"
        />
        {domain ? (
          <>
            <Text size="sm">
              Publish these DNS records for <Code>{domain.domain}</Code>, then check. Links will start with <Code>{domain.trackingUrl}</Code>.
            </Text>
            <DnsRecordsTable label={`DNS records of the tracking domain ${domain.domain}`} records={domain.records} />
          </>
        ) : null}
        {mayChange && current.data !== undefined ? (
          <form onSubmit={submit}>
            <Group align="flex-end">
              <TextInput
                label={domain ? 'New tracking domain' : 'Tracking domain name'}
                placeholder="track.example.com"
                required
                value={name}
                onChange={(e) => setName(e.currentTarget.value)}
                error={fieldError(set.error, 'domain')}
                w={300}
              />
              <Button type="submit" loading={set.isPending}>
                Set tracking domain
              </Button>
            </Group>
          </form>
        ) : null}
        {set.error && !fieldError(set.error, 'domain') ? <ErrorState error={set.error} title="The tracking domain was not set" /> : null}
      </Stack>
    </Paper>
  );
}
