import { useState } from 'react';
import { Button, Group, NumberInput, Progress, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, ResponseOf, unwrap } from '../../api/client';
import { ErrorState, Loading } from '../States';
import { dayWords, numberWords } from '../../api/dates';
import { capOf, Section } from './ProjectSections';

export type Consumption = ResponseOf<'/users/@me/projects/{id}/billing-consumption', 'get'>;

/** Consumption of the month and its caps (billing on only); owners and admins set the caps (PUT billing-limits). */
export function Billing({ projectId, may }: { projectId: string; may: boolean }) {
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

export function BillingUsage({ projectId, may, usage: u }: { projectId: string; may: boolean; usage: Consumption }) {
  const qc = useQueryClient();
  const [emails, setEmails] = useState<number | string>(u.emails.limit ?? '');
  const [contacts, setContacts] = useState<number | string>(u.contacts.limit ?? '');
  const save = useMutation({
    meta: { success: 'Caps saved' },
    mutationFn: () =>
      unwrap(
        api.PUT('/users/@me/projects/{id}/billing-limits', { params: { path: { id: projectId } }, body: { emails: capOf(emails), contacts: capOf(contacts) } }),
      ),
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
            <NumberInput
              label="Monthly email cap"
              description="Empty: no cap"
              min={0}
              allowDecimal={false}
              value={emails}
              onChange={setEmails}
              error={fieldError(save.error, 'emails')}
              w={200}
            />
            <NumberInput
              label="Contact cap"
              description="Empty: no cap"
              min={0}
              allowDecimal={false}
              value={contacts}
              onChange={setContacts}
              error={fieldError(save.error, 'contacts')}
              w={200}
            />
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
