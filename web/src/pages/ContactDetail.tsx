import { useState } from 'react';
import { Anchor, Badge, Button, Code, Group, Modal, Paper, Stack, Table, Text, Timeline, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { api, forProject, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { Empty, ErrorState, Loading } from '../components/States';

export default function ContactDetail() {
  const { projectId } = useCurrentProject();
  const { contactId = '' } = useParams();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const headers = forProject(projectId);
  const contact = useQuery({
    queryKey: ['contact', projectId, contactId],
    queryFn: () => unwrap(api.GET('/contacts/{id}', { params: { path: { id: contactId } }, headers })),
  });
  const events = useQuery({
    queryKey: ['contact-events', projectId, contactId],
    queryFn: () => unwrap(api.GET('/events/contact/{contactId}', { params: { path: { contactId }, query: { limit: 50 } }, headers })),
  });
  const setSubscribed = useMutation({
    mutationFn: (subscribed: boolean) => unwrap(api.PATCH('/contacts/{id}', { params: { path: { id: contactId } }, body: { subscribed }, headers })),
    onSuccess: (data) => {
      qc.setQueryData(['contact', projectId, contactId], data);
      return qc.invalidateQueries({ queryKey: ['contacts', projectId] });
    },
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/contacts/{id}', { params: { path: { id: contactId } }, headers })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['contacts', projectId] });
      navigate(`/p/${projectId}/contacts`);
    },
  });
  const back = (
    <Anchor component={Link} to={`/p/${projectId}/contacts`} size="sm">
      ← Contacts
    </Anchor>
  );
  if (contact.isPending) return <Loading />;
  if (contact.error) return <>{back}<ErrorState error={contact.error} /></>;
  const c = contact.data;
  const fields = Object.entries(c.data ?? {});
  return (
    <Stack>
      {back}
      <Group justify="space-between">
        <Title order={1} size="h2">
          {c.email}
        </Title>
        <Badge size="lg" color={c.subscribed ? 'green' : 'gray'}>
          {c.subscribed ? 'Subscribed' : 'Unsubscribed'}
        </Badge>
      </Group>
      <Group>
        <Button variant="light" loading={setSubscribed.isPending} onClick={() => setSubscribed.mutate(!c.subscribed)}>
          {c.subscribed ? 'Unsubscribe' : 'Subscribe'}
        </Button>
        <Button color="red" variant="light" onClick={() => setConfirming(true)}>
          Delete contact
        </Button>
      </Group>
      {setSubscribed.error ? <ErrorState error={setSubscribed.error} /> : null}
      <Paper withBorder p="md">
        <Title order={2} size="h4" mb="sm">
          Fields
        </Title>
        <Table aria-label="Contact fields">
          <Table.Tbody>
            <Table.Tr>
              <Table.Th>id</Table.Th>
              <Table.Td>
                <Code>{c.id}</Code>
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>created</Table.Th>
              <Table.Td>{new Date(c.createdAt).toLocaleString()}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>updated</Table.Th>
              <Table.Td>{new Date(c.updatedAt).toLocaleString()}</Table.Td>
            </Table.Tr>
            {fields.map(([k, v]) => (
              <Table.Tr key={k}>
                <Table.Th>{k}</Table.Th>
                <Table.Td>
                  <Code>{JSON.stringify(v)}</Code> <Text span size="xs" c="dimmed">{Array.isArray(v) ? 'list' : v === null ? 'null' : typeof v}</Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        {!fields.length ? <Text size="sm" c="dimmed">No custom fields.</Text> : null}
      </Paper>
      <Paper withBorder p="md">
        <Title order={2} size="h4" mb="sm">
          Events
        </Title>
        {events.isPending ? <Loading /> : null}
        {events.error ? <ErrorState error={events.error} /> : null}
        {events.data && !events.data.data.length ? <Empty>No events for this contact yet.</Empty> : null}
        {events.data?.data.length ? (
          <Timeline bulletSize={14} lineWidth={2} aria-label="Events timeline">
            {events.data.data.map((e) => (
              <Timeline.Item key={e.id} title={e.name}>
                <Text size="xs" c="dimmed">
                  {new Date(e.createdAt).toLocaleString()}
                </Text>
                {Object.keys(e.data).length ? <Code block>{JSON.stringify(e.data, null, 2)}</Code> : null}
              </Timeline.Item>
            ))}
          </Timeline>
        ) : null}
      </Paper>
      <Modal opened={confirming} onClose={() => setConfirming(false)} title="Delete this contact?">
        <Stack>
          <Text>
            {c.email} and all of its events are deleted for good.
          </Text>
          {remove.error ? <ErrorState error={remove.error} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
              Delete
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
