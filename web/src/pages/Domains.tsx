import { useState, type FormEvent } from 'react';
import { Alert, Badge, Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, ResponseOf, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { useDomains } from '../api/hooks/domains';
import { useAppConfig } from '../api/session';
import { useCurrentProject } from '../api/project';
import { manages } from '../routes';
import { DnsRecordsTable, isRecordPurpose } from '../components/DnsRecordsTable';
import { Empty, ErrorState, Loading } from '../components/States';
import { TrackingDomainSection } from '../components/TrackingDomain';
import { ConfirmDialog } from '../components/dialogs/ConfirmDialog';
import { momentWords } from '../api/dates';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';

type Domain = ResponseOf<'/domains/project/{projectId}', 'get'>[number];

/** What "Verify now" found, in sentences: the records found, the ones still missing, and what that means for sending. */
function checkOutcome(d: Domain, t: TFunction<'settings'>): string {
  const names = (rs: Domain['records']) => rs.map((r) => (isRecordPurpose(r.purpose) ? t(`domains.recordNames.${r.purpose}`) : r.purpose)).join(', ');
  const found = d.records.filter((r) => r.valid);
  const missingRequired = d.records.filter((r) => r.required && !r.valid);
  const missingOptional = d.records.filter((r) => !r.required && !r.valid);
  const sentences = [t('domains.outcome.head', { found: found.length, total: d.records.length })];
  if (d.status === 'VERIFIED' && !missingRequired.length) sentences.push(t('domains.outcome.ready', { domain: d.domain }));
  else if (d.status === 'VERIFIED') sentences.push(t('domains.outcome.lost', { domain: d.domain, names: names(missingRequired) }));
  else sentences.push(t('domains.outcome.missing', { domain: d.domain, names: names(missingRequired) }));
  if (missingOptional.length) sentences.push(t('domains.outcome.optional', { names: names(missingOptional) }));
  return sentences.join(' ');
}

function DomainCard({ domain, projectId, may }: { domain: Domain; projectId: string; may: boolean }) {
  const { t } = useTranslation('settings');
  const qc = useQueryClient();
  const verify = useMutation({
    mutationFn: () => unwrap(api.GET('/domains/{id}/verify', { params: { path: { id: domain.id } } })),
    onSuccess: (checked) => {
      setOutcome(checkOutcome(checked, t));
      return qc.invalidateQueries({ queryKey: keys.domains.all(projectId) });
    },
  });
  const [outcome, setOutcome] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  const remove = useMutation({
    meta: { success: t('domains.deleted') },
    mutationFn: () => unwrap(api.DELETE('/domains/{id}', { params: { path: { id: domain.id } } })),
    onSuccess: async () => {
      setAsking(false);
      await Promise.all([qc.invalidateQueries({ queryKey: keys.domains.all(projectId) }), qc.invalidateQueries({ queryKey: keys.setupState(projectId) })]);
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
            {domain.status === 'VERIFIED' ? t('domains.verified') : t('domains.pending')}
          </Badge>
        </Group>
        <Group>
          <Text size="sm" c="dimmed">
            {t('domains.lastCheck', { when: domain.lastCheckedAt ? momentWords(domain.lastCheckedAt) : t('domains.never') })}
          </Text>
          <Button
            size="xs"
            onClick={() => {
              setOutcome(null);
              verify.mutate();
            }}
            loading={verify.isPending}
          >
            {t('domains.verifyNow')}
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
              {t('domains.delete')}
            </Button>
          ) : null}
        </Group>
      </Group>
      {verify.error ? <ErrorState error={verify.error} title={t('domains.checkFailed')} /> : null}
      {outcome ? (
        <Alert role="status" color={domain.status === 'VERIFIED' ? 'green' : 'yellow'} mb="sm" data-testid="verify-outcome">
          {outcome}
        </Alert>
      ) : null}
      <Text size="sm" mb="xs">
        {t('domains.publish')}
      </Text>
      <DnsRecordsTable label={t('domains.recordsOf', { domain: domain.domain })} records={domain.records} detailed checked={!!domain.lastCheckedAt} />
      <ConfirmDialog
        opened={asking}
        title={t('domains.confirmTitle', { domain: domain.domain })}
        message={t('domains.confirmMessage', { domain: domain.domain })}
        confirmLabel={t('domains.delete')}
        confirmColor="red"
        loading={remove.isPending}
        error={remove.error}
        errorTitle={t('domains.notDeleted')}
        onConfirm={() => remove.mutate()}
        onCancel={() => setAsking(false)}
      />
    </Paper>
  );
}

export default function Domains() {
  const { t } = useTranslation('settings');
  const { projectId, project } = useCurrentProject();
  const may = manages(project?.role);
  const config = useAppConfig();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const domains = useDomains(projectId);
  const add = useMutation({
    meta: { success: t('domains.added') },
    mutationFn: (domain: string) => unwrap(api.POST('/domains', { body: { domain } })),
    onSuccess: () => {
      setName('');
      return Promise.all([qc.invalidateQueries({ queryKey: keys.domains.all(projectId) }), qc.invalidateQueries({ queryKey: keys.setupState(projectId) })]);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate(name.trim());
  };
  return (
    <Stack>
      <Title order={1} size="h2">
        {t('domains.heading')}
      </Title>
      {config.data?.email.senderCheckWaived ? (
        <Text size="sm" c="dimmed">
          {t('domains.devInbox')}
        </Text>
      ) : null}
      {may ? (
        <Paper withBorder p="md">
          <form onSubmit={submit}>
            <Group align="flex-end">
              <TextInput
                label={t('domains.domain')}
                placeholder={t('domains.placeholder')}
                required
                value={name}
                onChange={(e) => setName(e.currentTarget.value)}
                error={fieldError(add.error, 'domain')}
                w={300}
              />
              <Button type="submit" loading={add.isPending}>
                {t('domains.add')}
              </Button>
            </Group>
          </form>
          {add.error && !hasFieldErrors(add.error) ? <ErrorState error={add.error} title={t('domains.notAdded')} /> : null}
        </Paper>
      ) : (
        <Text size="sm" c="dimmed">
          {t('domains.readOnly', { role: t(`roles.${project?.role ?? 'unknown'}`) })}
        </Text>
      )}
      {domains.isPending ? <Loading /> : null}
      {domains.error ? <ErrorState error={domains.error} /> : null}
      {domains.data && !domains.data.length ? <Empty>{t('domains.empty')}</Empty> : null}
      {domains.data?.map((d) => (
        <DomainCard key={d.id} domain={d} projectId={projectId} may={may} />
      ))}
      <TrackingDomainSection />
    </Stack>
  );
}
