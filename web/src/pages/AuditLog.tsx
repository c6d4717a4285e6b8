import { useState } from 'react';
import { Alert, Code, Group, Select, Table, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, ResponseOf, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { manages } from '../routes';
import { CountAndPages, ListPage, ListTable } from '../components/ListPage';
import { momentWords } from '../api/dates';

type Entry = ResponseOf<'/projects/{id}/audit', 'get'>['data'][number];
type Action = Entry['action'];

const PAGE_SIZE = 25;

/**
 * Words for each action the server logs. Typed by the generated schema's enum: an action the server
 * adds (or drops) is a compile error here until it has its words.
 */
const ACTIONS: Record<Action, string> = {
  'project.create': 'Created the project',
  'keys.rotate': 'Rotated the API keys',
  'api_key.create': 'Created an API key',
  'api_key.revoke': 'Revoked an API key',
  'member.add': 'Added a member',
  'member.invite': 'Invited someone',
  'member.role': "Changed a member's role",
  'member.remove': 'Removed a member',
  'invite.withdraw': 'Withdrew an invite',
  'project.update': 'Changed the project',
  'project.require_two_factor': 'Changed whether members need two-factor authentication',
  'project.reset': 'Reset the project',
  'settings.update': 'Changed the settings',
  'billing.limits': 'Set billing limits',
  'domain.create': 'Added a domain',
  'domain.delete': 'Removed a domain',
  'tracking_domain.set': 'Set the tracking domain',
  'tracking_domain.delete': 'Removed the tracking domain',
  'contact.delete': 'Deleted a contact',
  'contact.erase': 'Erased a person',
  'contact.export': "Exported a contact's data",
  'contact.import': 'Imported contacts',
  'contact.bulk_subscribe': 'Subscribed contacts in bulk',
  'contact.bulk_unsubscribe': 'Unsubscribed contacts in bulk',
  'contact.bulk_delete': 'Deleted contacts in bulk',
  'contact_field.delete': 'Deleted a contact field',
  'contact_view.create': 'Saved a contact view',
  'contact_view.update': 'Changed a contact view',
  'contact_view.delete': 'Deleted a contact view',
  'event.delete': 'Deleted an event name',
  'suppression.add': 'Suppressed addresses',
  'suppression.remove': 'Lifted a suppression',
  'template.create': 'Created a template',
  'template.update': 'Changed a template',
  'template.publish': 'Published a template version',
  'brand.update': 'Changed the brand',
  'template.delete': 'Deleted a template',
  'campaign.create': 'Created a campaign',
  'campaign.update': 'Changed a campaign',
  'campaign.delete': 'Deleted a campaign',
  'campaign.send': 'Sent or scheduled a campaign',
  'campaign.cancel': 'Cancelled a campaign',
  'campaign.unschedule': 'Took a scheduled campaign back to draft',
  'workflow.create': 'Created a workflow',
  'workflow.delete': 'Deleted a workflow',
  'workflow.enable': 'Enabled a workflow',
  'workflow.disable': 'Disabled a workflow',
  'workflow.update': 'Changed a workflow',
  'segment.create': 'Created a segment',
  'segment.update': 'Changed a segment',
  'segment.delete': 'Deleted a segment',
  'topic.create': 'Created a topic',
  'topic.update': 'Changed a topic',
  'topic.delete': 'Deleted a topic',
  'form.create': 'Created a signup form',
  'form.update': 'Changed a signup form',
  'form.delete': 'Deleted a signup form',
  'webhook_endpoint.create': 'Created a webhook endpoint',
  'webhook_endpoint.update': 'Changed a webhook endpoint',
  'webhook_endpoint.rotate_secret': "Rotated a webhook endpoint's secret",
  'webhook_endpoint.delete': 'Deleted a webhook endpoint',
  'retention.prune': 'Removed old data (retention)',
  'access.denied': 'Refused: role too low',
};

/** The target by name, as the server resolved it (a URL, an address, a field), with its kind and id below. */
function Target({ target, contacts }: Pick<Entry, 'target' | 'contacts'>) {
  const name = target.name ?? (contacts.length ? contacts.join(', ') : null);
  return (
    <>
      {name ? (
        <Text size="sm" style={{ wordBreak: 'break-word' }}>
          {name}
        </Text>
      ) : null}
      <Text size="xs" c="dimmed">
        {target.type} {target.id && target.id !== target.name ? <Code>{target.id}</Code> : null}
      </Text>
    </>
  );
}

const who = (e: Entry) =>
  e.actorEmail ??
  (e.actor === 'secret key'
    ? 'The secret key'
    : e.actor.startsWith('api key ')
      ? `The API key ${e.actor.slice(8)}…`
      : e.actor === 'system'
        ? 'The system'
        : 'A deleted account');

/** The details as short `key: value` pairs (settings keys changed, a role, counts removed). */
function Details({ details }: { details: Entry['details'] }) {
  if (!details || !Object.keys(details).length) return <>—</>;
  return (
    <Text size="xs" style={{ wordBreak: 'break-word' }}>
      {Object.entries(details)
        .map(([k, v]) => `${k}: ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
        .join(' · ')}
    </Text>
  );
}

/** GET /projects/:id/audit: who changed what, newest first, by page, filtered by action (owners and admins; docs/roles.md). */
export default function AuditLog() {
  const { projectId, project } = useCurrentProject();
  const [action, setAction] = useState<string>('all');
  const [page, setPage] = useState(1);
  const allowed = manages(project?.role);
  const list = useQuery({
    queryKey: ['audit', projectId, action, page],
    queryFn: () =>
      unwrap(
        api.GET('/projects/{id}/audit', {
          params: { path: { id: projectId }, query: { page, pageSize: PAGE_SIZE, action: action === 'all' ? undefined : (action as Action) } },
        }),
      ),
    enabled: allowed,
    placeholderData: keepPreviousData,
  });
  return (
    <ListPage
      title="Audit log"
      description={`Who changed what in ${list.data?.project.name ?? project?.name ?? 'this project'}: keys, team, settings and billing limits, domains, webhook endpoints, suppressions, bulk changes, deletions, resets, campaign sends, workflow switches, and attempts a role did not allow. Each entry is written with its change.`}
    >
      {!allowed ? (
        <Alert color="gray" title="Owners and admins only">
          Your role ({project?.role ?? 'unknown'}) may not read the audit log of this project.
        </Alert>
      ) : (
        <>
          <Group>
            <Select
              label="Action"
              value={action}
              onChange={(v) => {
                setAction(v ?? 'all');
                setPage(1);
              }}
              allowDeselect={false}
              data={[{ value: 'all', label: 'All actions' }, ...Object.entries(ACTIONS).map(([value, label]) => ({ value, label }))]}
              w={300}
            />
          </Group>
          <ListTable
            query={list}
            label="Audit log"
            miw={860}
            fz="sm"
            head={
              <>
                <Table.Th>When</Table.Th>
                <Table.Th>Who</Table.Th>
                <Table.Th>What</Table.Th>
                <Table.Th>Target</Table.Th>
                <Table.Th>Details</Table.Th>
                <Table.Th>From</Table.Th>
              </>
            }
            row={(e) => (
              <Table.Tr key={e.id}>
                <Table.Td>{momentWords(e.at)}</Table.Td>
                <Table.Td>{who(e)}</Table.Td>
                <Table.Td>
                  {e.summary}
                  <Text size="xs" c="dimmed">
                    {e.action}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Target target={e.target} contacts={e.contacts} />
                </Table.Td>
                <Table.Td>
                  <Details details={e.details} />
                </Table.Td>
                <Table.Td>{e.ip ?? '—'}</Table.Td>
              </Table.Tr>
            )}
            empty={action === 'all' ? 'Nothing logged yet.' : 'No entries for this action.'}
            footer={(d) => (
              <CountAndPages
                count={
                  <>
                    {d.total} entr{d.total === 1 ? 'y' : 'ies'}
                  </>
                }
                countTestId="audit-total"
                page={page}
                totalPages={d.totalPages}
                onPage={setPage}
              />
            )}
          />
        </>
      )}
    </ListPage>
  );
}
