import { useState } from 'react';
import { Anchor, Badge, Button, Code, Group, Paper, SegmentedControl, Stack, Text, Timeline, Title } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { api, type ResponseOf, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { momentWords } from '../../api/dates';
import { Empty, ErrorState, Loading } from '../States';
import { EMAIL_STATUS_COLOR } from '../ContactEmails';
import { EmailContentDialog } from '../dialogs/EmailContentDialog';

type Page = ResponseOf<'/contacts/{id}/timeline', 'get'>;
type Item = Page['data'][number];
type Kind = Item['kind'];

const KINDS: Array<Kind | 'all'> = ['all', 'email', 'event', 'workflow', 'segment', 'topic', 'consent', 'inbound'];

/** Colours whose light-variant text the theme holds to 4.5:1 (web/src/theme.ts). */
const KIND_COLOR: Record<Kind, string> = {
  email: 'blue',
  event: 'yellow',
  workflow: 'cyan',
  segment: 'teal',
  topic: 'orange',
  consent: 'green',
  inbound: 'lime',
};

/**
 * An item's title in the dashboard's language where the item carries what it is made of (an email's
 * subject and status, an event's name); a consent record's title is one of two fixed words of the API
 * (api/presenters/contactTimeline.ts), said here in ours. Otherwise the API's sentence, as it names
 * things the page does not have (a segment's or topic's name).
 */
function titleOf(t: TFunction<'contacts'>, item: Item): string {
  if (item.email) return t('timeline.emailTitle', { subject: item.email.subject || t('noSubject'), status: t(`emailStatusInSentence.${item.email.status}`) });
  if (item.event) return t('timeline.eventTitle', { name: item.event.name });
  if (item.kind === 'consent' && (item.title === 'Subscribed' || item.title === 'Unsubscribed'))
    return t(item.title === 'Subscribed' ? 'subscribed' : 'unsubscribed');
  return item.title;
}

/** What one item shows under its title: the email's story and content, an event's data, links to what it names. */
function ItemBody({ projectId, item, openEmail }: { projectId: string; item: Item; openEmail: (id: string) => void }) {
  const { t } = useTranslation('contacts');
  const l = item.links;
  return (
    <Stack gap={4}>
      <Text size="xs" c="dimmed">
        {momentWords(item.at)}
        {item.detail ? ` · ${item.detail}` : ''}
      </Text>
      {item.email ? (
        <Group gap={6} aria-label={t('timeline.story')}>
          <Badge size="sm" variant="light" color={EMAIL_STATUS_COLOR[item.email.status]}>
            {t(`emailStatus.${item.email.status}`)}
          </Badge>
          {item.email.story.map((s) => (
            <Text key={s.step} size="xs">
              {t(`emailStep.${s.step}`)} {momentWords(s.at)}
            </Text>
          ))}
        </Group>
      ) : null}
      {item.event && Object.keys(item.event.data).length ? <Code block>{JSON.stringify(item.event.data, null, 2)}</Code> : null}
      <Group gap="sm">
        {l.emailId ? (
          <Button
            size="compact-xs"
            variant="light"
            onClick={() => openEmail(l.emailId!)}
            aria-label={item.email ? t('timeline.openEmailNamed', { subject: item.email.subject }) : undefined}
          >
            {t('timeline.openEmail')}
          </Button>
        ) : null}
        {l.campaignId ? (
          <Anchor component={Link} to={`/p/${projectId}/campaigns/${l.campaignId}`} size="xs">
            {t('timeline.campaign')}
          </Anchor>
        ) : null}
        {l.workflowId ? (
          <Anchor component={Link} to={`/p/${projectId}/workflows/${l.workflowId}/executions`} size="xs">
            {t('timeline.workflowRuns')}
          </Anchor>
        ) : null}
        {l.segmentId && item.kind === 'segment' ? (
          <Anchor component={Link} to={`/p/${projectId}/segments/${l.segmentId}`} size="xs">
            {t('timeline.segment')}
          </Anchor>
        ) : null}
        {l.inboundId ? (
          <Anchor component={Link} to={`/p/${projectId}/inbound`} size="xs">
            {t('timeline.inbound')}
          </Anchor>
        ) : null}
      </Group>
    </Stack>
  );
}

/**
 * "Timeline": everything that happened to one person (GET /contacts/:id/timeline), newest first,
 * filtered by kind, 25 at a time with "Load more"; an email's content opens in a dialog.
 */
export function ContactTimeline({ projectId, contactId }: { projectId: string; contactId: string }) {
  const { t } = useTranslation('contacts');
  const [kind, setKind] = useState<Kind | 'all'>('all');
  const [emailId, setEmailId] = useState<string | null>(null);
  const list = useInfiniteQuery({
    queryKey: keys.contacts.timeline(projectId, contactId, kind),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/contacts/{id}/timeline', {
          params: { path: { id: contactId }, query: { limit: 25, ...(kind === 'all' ? {} : { kind }), ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    getNextPageParam: (last) => (last.hasMore && last.cursor ? last.cursor : undefined),
  });
  const items = list.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <Paper withBorder p="md" role="region" aria-label={t('timeline.heading')}>
      <Stack gap="sm">
        <Title order={2} size="h4">
          {t('timeline.heading')}
        </Title>
        <SegmentedControl
          aria-label={t('timeline.kind')}
          data={KINDS.map((value) => ({ value, label: t(`timeline.kinds.${value}`) }))}
          value={kind}
          onChange={(v) => setKind(v as Kind | 'all')}
          size="xs"
          style={{ alignSelf: 'flex-start' }}
        />
        {list.isPending ? <Loading /> : null}
        {list.error ? <ErrorState error={list.error} title={t('timeline.notLoaded')} /> : null}
        {list.data && !items.length ? <Empty>{kind === 'all' ? t('timeline.nothing') : t('timeline.nothingOfKind')}</Empty> : null}
        {items.length ? (
          <Timeline bulletSize={14} lineWidth={2} aria-label={t('timeline.label')}>
            {items.map((item) => (
              <Timeline.Item
                key={`${item.kind}:${item.id}`}
                color={KIND_COLOR[item.kind]}
                data-kind={item.kind}
                title={
                  <Group gap={6}>
                    <Badge size="xs" variant="light" color={KIND_COLOR[item.kind]}>
                      {t(`timeline.kindOne.${item.kind}`)}
                    </Badge>
                    <Text size="sm" fw={600} span>
                      {titleOf(t, item)}
                    </Text>
                  </Group>
                }
              >
                <ItemBody projectId={projectId} item={item} openEmail={setEmailId} />
              </Timeline.Item>
            ))}
          </Timeline>
        ) : null}
        {list.hasNextPage ? (
          <Button variant="default" onClick={() => list.fetchNextPage()} loading={list.isFetchingNextPage} style={{ alignSelf: 'center' }}>
            {t('timeline.loadMore')}
          </Button>
        ) : null}
      </Stack>
      <EmailContentDialog projectId={projectId} emailId={emailId} onClose={() => setEmailId(null)} />
    </Paper>
  );
}
