import { Anchor, Paper, ScrollArea, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { ResponseOf } from '../api/client';
import { percent } from '../api/campaigns';
import { numberWords } from '../api/dates';
import { Empty } from './States';

type Campaign = ResponseOf<'/analytics/top-campaigns', 'get'>['data'][number];

/** Each rate: what it counts over what was sent (GET /analytics/top-campaigns: openRate = opened / sent…). */
const RATES = [
  { key: 'openRate', count: 'opened', hint: 'openRateHint' },
  { key: 'clickRate', count: 'clicked', hint: 'clickRateHint' },
  { key: 'bounceRate', count: 'bounced', hint: 'bounceRateHint' },
] as const;

/**
 * The Analytics page's campaign rates: for each campaign that started sending in the window, its open,
 * click and bounce rates as percentages in the reader's language, each with the counts it is made of
 * ("66.7%", "2 of 3"); each column says what it counts. A campaign that sent nothing yet has no rate.
 */
export function CampaignRates({ projectId, campaigns }: { projectId: string; campaigns: Campaign[] }) {
  const { t } = useTranslation('data');
  return (
    <Paper withBorder p="md">
      <Stack gap="xs">
        <Title order={2} size="h4">
          {t('analytics.rates')}
        </Title>
        <Text size="sm" c="dimmed">
          {t('analytics.ratesHint')}
        </Text>
        {!campaigns.length ? (
          <Empty>{t('analytics.noRates')}</Empty>
        ) : (
          <ScrollArea>
            <Table aria-label={t('analytics.rates')} miw={560} striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('analytics.campaign')}</Table.Th>
                  {RATES.map((r) => (
                    <Table.Th key={r.key} ta="right">
                      {t(`analytics.${r.key}`)}
                      <Text size="xs" c="dimmed" fw={400}>
                        {t(`analytics.${r.hint}`)}
                      </Text>
                    </Table.Th>
                  ))}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {campaigns.map((c) => {
                  const sent = c.sent as number;
                  return (
                    <Table.Tr key={c.id}>
                      <Table.Td>
                        <Anchor component={Link} to={`/p/${projectId}/campaigns/${c.id}`}>
                          {c.name}
                        </Anchor>
                      </Table.Td>
                      {RATES.map((r) => (
                        <Table.Td key={r.key} ta="right">
                          {sent > 0 ? (
                            <>
                              <Text span fw={600}>
                                {percent(c[r.key] as number)}
                              </Text>
                              <Text size="xs" c="dimmed">
                                {t('analytics.rateOf', { n: numberWords(c[r.count] as number), of: numberWords(sent) })}
                              </Text>
                            </>
                          ) : (
                            <Text size="xs" c="dimmed">
                              {t('analytics.nothingSent')}
                            </Text>
                          )}
                        </Table.Td>
                      ))}
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </ScrollArea>
        )}
      </Stack>
    </Paper>
  );
}
