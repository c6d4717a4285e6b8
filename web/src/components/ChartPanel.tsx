import { lazy, Suspense } from 'react';
import { Paper, ScrollArea, Skeleton, Stack, Table, Tabs, Text, Title } from '@mantine/core';
import type { ChartProps } from './charts';
import { numberWords } from '../api/dates';
import { useTranslation } from 'react-i18next';

/** recharts is fetched with the first chart shown, in a chunk of its own: never on the first screen. */
const Chart = lazy(() => import('./charts'));

export type { ChartSeries, ChartRow } from './charts';

/**
 * A chart with a table view of the same numbers ("Table" tab): the chart is a picture (role img,
 * named by its title and totals), the table is what a screen reader reads and what a person copies.
 */
export function ChartPanel({ title, description, empty, ...props }: ChartProps & { title: string; description?: string; empty?: string }) {
  const { t } = useTranslation('data');
  const totals = props.series
    .map((s) => t('chart.total', { label: s.label, n: numberWords(props.rows.reduce((sum, r) => sum + Number(r[s.key] ?? 0), 0)) }))
    .join(', ');
  return (
    <Paper withBorder p="md">
      <Stack gap="xs">
        <Title order={2} size="h4">
          {title}
        </Title>
        {description ? (
          <Text size="sm" c="dimmed">
            {description}
          </Text>
        ) : null}
        {!props.rows.length ? (
          <Text c="dimmed" py="md" ta="center">
            {empty ?? t('chart.empty')}
          </Text>
        ) : (
          <Tabs defaultValue="chart">
            <Tabs.List>
              <Tabs.Tab value="chart">{t('chart.chart')}</Tabs.Tab>
              <Tabs.Tab value="table">{t('chart.table')}</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="chart" pt="xs">
              <div role="img" aria-label={t('chart.named', { title, totals })}>
                <Suspense fallback={<Skeleton height={props.height ?? 260} aria-label={t('chart.loading')} />}>
                  <Chart {...props} />
                </Suspense>
              </div>
            </Tabs.Panel>
            <Tabs.Panel value="table" pt="xs">
              <ScrollArea h={Math.min(360, 40 + props.rows.length * 34)}>
                <Table aria-label={title} striped>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>{props.xLabel}</Table.Th>
                      {props.series.map((s) => (
                        <Table.Th key={s.key} ta="right">
                          {s.label}
                        </Table.Th>
                      ))}
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {props.rows.map((r, i) => (
                      <Table.Tr key={i}>
                        <Table.Td>{String(r[props.xKey])}</Table.Td>
                        {props.series.map((s) => (
                          <Table.Td key={s.key} ta="right">
                            {numberWords(Number(r[s.key] ?? 0))}
                          </Table.Td>
                        ))}
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </ScrollArea>
            </Tabs.Panel>
          </Tabs>
        )}
      </Stack>
    </Paper>
  );
}
