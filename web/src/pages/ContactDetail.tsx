import { Anchor, Badge, Group, Stack, Switch, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { useContact, useUpdateContact } from '../api/hooks/contacts';
import { useCurrentProject } from '../api/project';
import { ContactEmails } from '../components/ContactEmails';
import { ContactFields } from '../components/contact/ContactFields';
import { ContactTimeline } from '../components/contact/ContactTimeline';
import { DeleteContact } from '../components/contact/DeleteContact';
import { EditEmail } from '../components/contact/EditEmail';
import { ErrorState, Loading } from '../components/States';
import { usePageTitle } from '../components/usePageTitle';

/** One contact: address and subscription, its fields, its timeline and the emails sent to it. */
export default function ContactDetail() {
  const { t } = useTranslation('contacts');
  const { projectId } = useCurrentProject();
  const { contactId = '' } = useParams();
  const contact = useContact(projectId, contactId);
  usePageTitle(contact.data ? t('detail.pageTitle', { email: contact.data.email }) : t('detail.pageTitleLoading'));
  const setSubscribed = useUpdateContact(projectId, contactId, {
    meta: { success: (_d, changes) => ((changes as { subscribed?: boolean }).subscribed ? t('subscribed') : t('unsubscribed')) },
  });
  const back = (
    <Anchor component={Link} to={`/p/${projectId}/contacts`} size="sm">
      {t('detail.back')}
    </Anchor>
  );
  if (contact.isPending) return <Loading />;
  if (contact.error)
    return (
      <>
        {back}
        <ErrorState error={contact.error} />
      </>
    );
  const c = contact.data;
  return (
    <Stack>
      {back}
      <Group justify="space-between">
        <Group gap="xs">
          <Title order={1} size="h2">
            {c.email}
          </Title>
          <EditEmail projectId={projectId} contactId={contactId} email={c.email} />
        </Group>
        <Badge size="lg" color={c.subscribed ? 'green' : 'gray'}>
          {c.subscribed ? t('subscribed') : t('unsubscribed')}
        </Badge>
      </Group>
      <Group justify="space-between">
        {/* PATCH /contacts/:id { subscribed }: the global opt-in (topics keep their own choices). */}
        <Switch
          label={t('subscribed')}
          description={t('receivesMarketing')}
          checked={setSubscribed.isPending ? !!setSubscribed.variables?.subscribed : c.subscribed}
          disabled={setSubscribed.isPending}
          onChange={(e) => setSubscribed.mutate({ subscribed: e.currentTarget.checked })}
        />
        <DeleteContact projectId={projectId} contactId={contactId} email={c.email} />
      </Group>
      {setSubscribed.error ? <ErrorState error={setSubscribed.error} /> : null}
      <ContactFields projectId={projectId} contactId={contactId} contact={c} />
      <ContactTimeline projectId={projectId} contactId={contactId} />
      <ContactEmails projectId={projectId} contactId={contactId} />
    </Stack>
  );
}
