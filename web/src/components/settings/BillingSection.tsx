import { useState } from 'react';
import { Button, Group, NumberInput, Progress, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, ResponseOf, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { useBilling } from '../../api/hooks/settings';
import { ErrorState, Loading } from '../States';
import { dayWords, numberWords } from '../../api/dates';
import { capOf, Section } from './ProjectSections';
import { useTranslation } from 'react-i18next';

export type Consumption = ResponseOf<'/users/@me/projects/{id}/billing-consumption', 'get'>;

/** Consumption of the month and its caps (billing on only); owners and admins set the caps (PUT billing-limits). */
export function Billing({ projectId, may }: { projectId: string; may: boolean }) {
  const { t } = useTranslation('settings');
  const usage = useBilling(projectId);
  return (
    <Section title={t('billing.heading')}>
      {usage.isPending ? <Loading /> : null}
      {usage.error ? <ErrorState error={usage.error} /> : null}
      {usage.data ? <BillingUsage projectId={projectId} may={may} usage={usage.data} /> : null}
    </Section>
  );
}

export function BillingUsage({ projectId, may, usage: u }: { projectId: string; may: boolean; usage: Consumption }) {
  const { t } = useTranslation('settings');
  const qc = useQueryClient();
  const [emails, setEmails] = useState<number | string>(u.emails.limit ?? '');
  const [contacts, setContacts] = useState<number | string>(u.contacts.limit ?? '');
  const save = useMutation({
    meta: { success: t('billing.saved') },
    mutationFn: () =>
      unwrap(
        api.PUT('/users/@me/projects/{id}/billing-limits', { params: { path: { id: projectId } }, body: { emails: capOf(emails), contacts: capOf(contacts) } }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.billing.consumption(projectId) }),
  });
  const row = (label: string, used: number, limit: number | null) => (
    <Stack gap={4}>
      <Text size="sm">
        {limit === null
          ? t('billing.uncapped', { label, used: numberWords(used) })
          : t('billing.capped', { label, used: numberWords(used), limit: numberWords(limit) })}
      </Text>
      {limit ? (
        <Progress value={Math.min(100, (100 * used) / limit)} aria-label={t('billing.used', { label })} color={used >= limit ? 'red' : 'indigo'} />
      ) : null}
    </Stack>
  );
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        {t('billing.period', { start: dayWords(u.period.start), end: dayWords(u.period.end) })}
      </Text>
      {row(t('billing.emails'), u.emails.used, u.emails.limit)}
      {row(t('billing.contacts'), u.contacts.used, u.contacts.limit)}
      {may ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
          noValidate
        >
          <Group align="flex-start">
            <NumberInput
              label={t('billing.emailCap')}
              description={t('billing.noCap')}
              min={0}
              allowDecimal={false}
              value={emails}
              onChange={setEmails}
              error={fieldError(save.error, 'emails')}
              w={200}
            />
            <NumberInput
              label={t('billing.contactCap')}
              description={t('billing.noCap')}
              min={0}
              allowDecimal={false}
              value={contacts}
              onChange={setContacts}
              error={fieldError(save.error, 'contacts')}
              w={200}
            />
            <Button type="submit" mt={45} loading={save.isPending}>
              {t('billing.save')}
            </Button>
          </Group>
          {save.error && !hasFieldErrors(save.error) ? <ErrorState error={save.error} title={t('billing.notSaved')} /> : null}
        </form>
      ) : null}
    </Stack>
  );
}
