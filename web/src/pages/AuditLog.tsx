import { useState } from 'react';
import { Alert, Code, Group, Select, Stack, Table, Text } from '@mantine/core';
import type { ResponseOf } from '../api/client';
import { useAuditLog } from '../api/hooks/audit';
import { useCurrentProject } from '../api/project';
import { manages } from '../routes';
import { CountAndPages, ListPage, ListTable } from '../components/ListPage';
import { momentWords, numberWords } from '../api/dates';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { data as en } from '../i18n/en/data';
import { auditSummary } from '../api/auditSummary';
import { auditDetailLines, targetTypeWords } from '../api/auditDetails';

type Entry = ResponseOf<'/projects/{id}/audit', 'get'>['data'][number];
type Action = Entry['action'];

const PAGE_SIZE = 25;

/** The data catalogue's actions, `{ project: { create } }`, as the server's names (`project.create`). */
type Catalogued<T> = { [G in keyof T & string]: `${G}.${keyof T[G] & string}` }[keyof T & string];
type Words = (typeof en)['audit']['actions'];
/**
 * Every action the server logs has its words: the catalogue's actions and the generated schema's enum
 * must be the same set, so an action the server adds (or drops) is a compile error until it has words.
 */
const SAME_ACTIONS: [Action] extends [Catalogued<Words>] ? ([Catalogued<Words>] extends [Action] ? true : never) : never = true;
const ACTIONS = SAME_ACTIONS && Object.entries(en.audit.actions).flatMap(([group, verbs]) => Object.keys(verbs).map((verb) => `${group}.${verb}` as Action));

/** The target by name, as the server resolved it (a URL, an address, a field), with its kind in words and its id below. */
function Target({ target, contacts }: Pick<Entry, 'target' | 'contacts'>) {
  const { t } = useTranslation('data');
  const name = target.name ?? (contacts.length ? contacts.join(', ') : null);
  return (
    <>
      {name ? (
        <Text size="sm" style={{ wordBreak: 'break-word' }}>
          {name}
        </Text>
      ) : null}
      <Text size="xs" c="dimmed">
        {targetTypeWords(t, target.type)} {target.id && target.id !== target.name ? <Code>{target.id}</Code> : null}
      </Text>
    </>
  );
}

const who = (t: TFunction<'data'>, e: Entry) =>
  e.actorEmail ??
  (e.actor === 'secret key'
    ? t('audit.secretKey')
    : e.actor.startsWith('api key ')
      ? t('audit.apiKey', { key: e.actor.slice(8) })
      : e.actor === 'system'
        ? t('audit.system')
        : t('audit.deletedAccount'));

/**
 * The details as labelled lines in the reader's language (the settings changed, a role, counts
 * removed: api/auditDetails.ts), a route tried as code, with the JSON the server stored one click away for operators.
 */
function Details({ details }: { details: Entry['details'] }) {
  const { t } = useTranslation('data');
  const lines = auditDetailLines(t, details);
  if (!lines.length) return <>—</>;
  return (
    <Stack gap={2}>
      {lines.map((l) => (
        <Text key={l.key} size="xs" style={{ wordBreak: 'break-word' }}>
          <Text span inherit fw={600}>
            {t('audit.detailLine', { label: l.label })}
          </Text>{' '}
          {l.code ? <Code fz="xs">{l.value}</Code> : l.value}
        </Text>
      ))}
      <details>
        <Text component="summary" size="xs" c="dimmed" style={{ cursor: 'pointer' }}>
          {t('audit.showRaw')}
        </Text>
        <Code block fz="xs">
          {JSON.stringify(details, null, 2)}
        </Code>
      </details>
    </Stack>
  );
}

/** GET /projects/:id/audit: who changed what, newest first, by page, filtered by action (owners and admins; docs/roles.md). */
export default function AuditLog() {
  const { t } = useTranslation('data');
  const { projectId, project } = useCurrentProject();
  const [action, setAction] = useState<string>('all');
  const [page, setPage] = useState(1);
  const allowed = manages(project?.role);
  const list = useAuditLog(projectId, { action: action as Action | 'all', page, pageSize: PAGE_SIZE, enabled: allowed });
  return (
    <ListPage title={t('audit.title')} description={t('audit.description', { project: list.data?.project.name ?? project?.name ?? t('audit.thisProject') })}>
      {!allowed ? (
        <Alert color="gray" title={t('audit.ownersOnly')}>
          {t('audit.roleRefused', { role: project?.role ?? t('audit.unknownRole') })}
        </Alert>
      ) : (
        <>
          <Group>
            <Select
              label={t('audit.action')}
              value={action}
              onChange={(v) => {
                setAction(v ?? 'all');
                setPage(1);
              }}
              allowDeselect={false}
              data={[{ value: 'all', label: t('audit.allActions') }, ...ACTIONS.map((value) => ({ value, label: t(`audit.actions.${value}`) }))]}
              w={300}
            />
          </Group>
          <ListTable
            query={list}
            label={t('audit.title')}
            miw={860}
            fz="sm"
            head={
              <>
                <Table.Th>{t('audit.when')}</Table.Th>
                <Table.Th>{t('audit.who')}</Table.Th>
                <Table.Th>{t('audit.what')}</Table.Th>
                <Table.Th>{t('audit.target')}</Table.Th>
                <Table.Th>{t('audit.details')}</Table.Th>
                <Table.Th>{t('audit.from')}</Table.Th>
              </>
            }
            row={(e) => (
              <Table.Tr key={e.id}>
                <Table.Td>{momentWords(e.at)}</Table.Td>
                <Table.Td>{who(t, e)}</Table.Td>
                <Table.Td>
                  {auditSummary(t, e)}
                  <Text size="xs" c="dimmed">
                    {t(`audit.actions.${e.action}`, { defaultValue: '' })}
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
            empty={action === 'all' ? t('audit.empty') : t('audit.emptyAction')}
            footer={(d) => (
              <CountAndPages
                count={t('audit.count', { count: d.total, n: numberWords(d.total) })}
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
