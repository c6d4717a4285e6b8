import type { ReactNode } from 'react';
import { Anchor, Badge, Group, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { STATUS_COLOR, type Campaign } from '../../api/campaigns';
import { useTranslation } from 'react-i18next';

/**
 * A campaign page's heading, for a one-off and an RSS campaign alike: the way back, the name with its
 * status (and any other badge), the line saying what is sent from whom to whom, and the page's controls.
 */
export function CampaignHeading({
  projectId,
  campaign: c,
  badges,
  summary,
  controls,
}: {
  projectId: string;
  campaign: Campaign;
  badges?: ReactNode;
  /** Words before and after the common "“subject” from sender · audience" (already in the reader's language). */
  summary: { before?: string; after?: string };
  controls: ReactNode;
}) {
  const { t } = useTranslation('campaigns');
  return (
    <Group justify="space-between" align="flex-start">
      <div>
        <Anchor component={Link} to={`/p/${projectId}/campaigns`} size="sm">
          {t('back')}
        </Anchor>
        <Group gap="sm">
          <Title order={1} size="h2">
            {c.name}
          </Title>
          <Badge variant="light" color={STATUS_COLOR[c.status]} size="lg" data-testid="campaign-status">
            {t(`status.${c.status}`)}
          </Badge>
          {badges}
        </Group>
        <Text size="sm" c="dimmed">
          {summary.before ?? ''}
          {t('heading.summary', { subject: c.subject, from: c.fromName ? `${c.fromName} <${c.from}>` : c.from, audience: t(`audience.${c.audienceType}`) })}
          {summary.after ?? ''}
        </Text>
      </div>
      {controls}
    </Group>
  );
}
