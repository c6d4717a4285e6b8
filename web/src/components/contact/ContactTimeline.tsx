import { useState } from 'react';
import { Anchor, Badge, Button, Code, Group, Paper, SegmentedControl, Stack, Text, Timeline, Title } from '@mantine/core';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ResponseOf } from '../../api/client';
import { useContactTimeline } from '../../api/hooks/contacts';
import { sourceWords } from '../../api/consentWords';
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
 * An item's title in the dashboard's language, composed from the parts its kind carries (an email's
 * subject and status, a segment's name and change…: api/presenters/contactTimeline.ts). The API's
 * English sentence is only the fallback for an item whose shape this dashboard does not know yet.
 */
function titleOf(t: TFunction<'contacts'>, item: Item): string {
  if (item.email) return t('timeline.emailTitle', { subject: item.email.subject || t('noSubject'), status: t(`emailStatusInSentence.${item.email.status}`) });
  if (item.event) return t('timeline.eventTitle', { name: item.event.name });
  if (item.workflow)
    return t('timeline.workflowTitle', { name: item.workflow.name ?? t('timeline.deletedWorkflow'), status: t(`timeline.runStatus.${item.workflow.status}`) });
  if (item.segment) return t(item.segment.change === 'entered' ? 'timeline.segmentEntered' : 'timeline.segmentLeft', { name: item.segment.name });
  if (item.topic) return t(item.topic.subscribed ? 'timeline.topicSubscribed' : 'timeline.topicUnsubscribed', { name: item.topic.name ?? item.topic.slug });
  if (item.consent) return t(item.consent.subscribed ? 'subscribed' : 'unsubscribed');
  if (item.inbound) {
    const what = t(`timeline.inboundKind.${item.inbound.kind}`);
    return item.inbound.subject ? t('timeline.inboundWithSubject', { what, subject: item.inbound.subject }) : what;
  }
  return item.title;
}

/**
 * The line under an item's title, from its parts like the title (where a change came from, an
 * email's type or error), or the API's English line for an item of an unknown shape.
 */
function detailOf(t: TFunction<'contacts'>, item: Item): string | null {
  if (item.email) return item.email.error ?? t(`timeline.emailSent.${item.email.origin ?? 'none'}`, { type: t(`emailType.${item.email.type}`) });
  if (item.event) return null;
  if (item.workflow) return item.workflow.error;
  if (item.segment) return t(`timeline.segmentCause.${item.segment.cause}`);
  if (item.topic) return sourceWords(t, item.topic.source);
  if (item.consent) return sourceWords(t, item.consent.source);
  if (item.inbound) return item.inbound.from ? t('timeline.inboundFrom', { address: item.inbound.from }) : null;
  return item.detail;
}

/** What one item shows under its title: the email's story and content, an event's data, links to what it names. */
function ItemBody({ projectId, item, openEmail }: { projectId: string; item: Item; openEmail: (id: string) => void }) {
  const { t } = useTranslation('contacts');
  const l = item.links;
  const detail = detailOf(t, item);
  return (
    <Stack gap={4}>
      <Text size="xs" c="dimmed">
        {momentWords(item.at)}
        {detail ? ` · ${detail}` : ''}
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
  const list = useContactTimeline(projectId, contactId, kind);
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
