import { useState, type FormEvent } from 'react';
import { Badge, Button, Code, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { useTrackingDomain } from '../api/hooks/domains';
import { useCurrentProject } from '../api/project';
import { ConfirmDialog } from './dialogs/ConfirmDialog';
import { DnsRecordsTable } from './DnsRecordsTable';
import { ErrorState, Loading } from './States';
import { momentWords } from '../api/dates';
import { Trans, useTranslation } from 'react-i18next';

/**
 * The project's own tracking domain (docs/tracking.md "Your own tracking domain"): the records to
 * publish, their status, "Check", and the form to set or remove it (owners and admins).
 */
export function TrackingDomainSection() {
  const { t } = useTranslation('settings');
  const when = (iso: string | null) => (iso ? momentWords(iso) : t('tracking.never'));
  const { projectId, project } = useCurrentProject();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [confirmRemove, setConfirmRemove] = useState(false);
  const mayChange = project?.role !== 'MEMBER';
  // No tracking domain set is null: shown as the form, not as an error.
  const current = useTrackingDomain(projectId);
  const refresh = () => qc.invalidateQueries({ queryKey: keys.domains.tracking(projectId) });
  const set = useMutation({
    meta: { success: t('tracking.saved') },
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
    meta: { success: t('tracking.removed') },
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
    <Paper withBorder p="md" component="section" aria-label={t('tracking.heading')}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Group>
            <Title order={2} size="h4">
              {t('tracking.heading')}
            </Title>
            {domain ? (
              <Badge color={domain.status === 'VERIFIED' ? 'green' : 'yellow'} data-testid="tracking-domain-status">
                {domain.status === 'VERIFIED' ? t('tracking.verified') : t('tracking.pending')}
              </Badge>
            ) : null}
          </Group>
          {domain ? (
            <Group>
              <Text size="sm" c="dimmed">
                {t('tracking.lastCheck', { when: when(domain.lastCheckedAt) })}
              </Text>
              <Button size="xs" onClick={() => check.mutate()} loading={check.isPending}>
                {t('tracking.check')}
              </Button>
              {mayChange ? (
                <Button size="xs" variant="light" color="red" onClick={() => setConfirmRemove(true)}>
                  {t('tracking.remove')}
                </Button>
              ) : null}
            </Group>
          ) : null}
        </Group>
        <Text size="sm">{t('tracking.intro')}</Text>
        {current.isPending ? <Loading /> : null}
        {current.error ? <ErrorState error={current.error} /> : null}
        {check.error ? <ErrorState error={check.error} title={t('tracking.checkFailed')} /> : null}
        <ConfirmDialog
          opened={confirmRemove}
          title={t('tracking.confirmTitle')}
          message={t('tracking.confirmMessage')}
          confirmLabel={t('tracking.confirm')}
          confirmColor="red"
          loading={remove.isPending}
          onConfirm={() => remove.mutate()}
          onCancel={() => setConfirmRemove(false)}
          error={remove.error}
          errorTitle={t('tracking.notRemoved')}
        />
        {domain ? (
          <>
            <Text size="sm">
              <Trans t={t} i18nKey="tracking.publish" values={{ domain: domain.domain, url: domain.trackingUrl }} components={{ code: <Code /> }} />
            </Text>
            <DnsRecordsTable label={t('tracking.recordsOf', { domain: domain.domain })} records={domain.records} />
          </>
        ) : null}
        {mayChange && current.data !== undefined ? (
          <form onSubmit={submit}>
            <Group align="flex-end">
              <TextInput
                label={domain ? t('tracking.newName') : t('tracking.name')}
                placeholder={t('tracking.placeholder')}
                required
                value={name}
                onChange={(e) => setName(e.currentTarget.value)}
                error={fieldError(set.error, 'domain')}
                w={300}
              />
              <Button type="submit" loading={set.isPending}>
                {t('tracking.set')}
              </Button>
            </Group>
          </form>
        ) : null}
        {set.error && !fieldError(set.error, 'domain') ? <ErrorState error={set.error} title={t('tracking.notSet')} /> : null}
      </Stack>
    </Paper>
  );
}
