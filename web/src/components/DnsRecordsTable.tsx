import { Badge, Code, Group, ScrollArea, Table, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Copy } from './Copy';

/** A DNS record a domain must publish, as the sender-domain and tracking-domain routes list them. */
export interface DnsRecord {
  type: string;
  name: string;
  value: string;
  purpose: string;
  required: boolean;
  valid: boolean;
  /** Why the last check did not find it (sender domains). */
  problem?: string | null;
}

/** The record purposes the catalogues have words for (dns.purposes, domains.recordNames); another one shows as the server sent it. */
const RECORD_PURPOSES = ['ownership', 'spf', 'dmarc', 'dkim', 'inbound', 'bounce'] as const;
export type RecordPurpose = (typeof RECORD_PURPOSES)[number];
export const isRecordPurpose = (p: string): p is RecordPurpose => (RECORD_PURPOSES as readonly string[]).includes(p);

/**
 * The records to publish, each name and value with its copy button and whether the last check
 * found it. `detailed` adds the purpose and required columns (sender domains list optional ones)
 * and, under a record not found, the sentence saying what the check found instead; `checked`:
 * whether any check ran yet (before one, nothing is "missing").
 */
export function DnsRecordsTable({
  label,
  records,
  detailed = false,
  checked = true,
}: {
  label: string;
  records: readonly DnsRecord[];
  detailed?: boolean;
  checked?: boolean;
}) {
  const { t } = useTranslation('settings');
  // What each record is for, as its owner reads it.
  const purposeWords = (purpose: string) => (isRecordPurpose(purpose) ? t(`dns.purposes.${purpose}`) : purpose);
  return (
    <ScrollArea>
      <Table aria-label={label} miw={detailed ? 700 : 640}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t('dns.type')}</Table.Th>
            <Table.Th>{t('dns.name')}</Table.Th>
            <Table.Th>{t('dns.value')}</Table.Th>
            {detailed ? (
              <>
                <Table.Th>{t('dns.purpose')}</Table.Th>
                <Table.Th>{t('dns.required')}</Table.Th>
              </>
            ) : null}
            <Table.Th>{t('dns.valid')}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {records.map((r) => (
            <Table.Tr key={`${r.purpose}-${r.type}-${r.name}`}>
              <Table.Td>{r.type}</Table.Td>
              <Table.Td>
                <Group gap={6} wrap="nowrap">
                  <Code>{r.name}</Code>
                  <Copy value={r.name} what={t('dns.recordName', { purpose: r.purpose })} />
                </Group>
              </Table.Td>
              <Table.Td>
                <Group gap={6} wrap="nowrap">
                  <Code style={{ wordBreak: 'break-all', maxWidth: 320 }}>{r.value}</Code>
                  <Copy value={r.value} what={t('dns.recordValue', { purpose: r.purpose })} />
                </Group>
              </Table.Td>
              {detailed ? (
                <>
                  <Table.Td>{purposeWords(r.purpose)}</Table.Td>
                  <Table.Td>{r.required ? t('dns.yes') : t('dns.no')}</Table.Td>
                </>
              ) : null}
              <Table.Td>
                <Badge color={r.valid ? 'green' : checked ? 'red' : 'gray'} variant="light" style={{ overflow: 'visible' }}>
                  {r.valid ? t('dns.found') : checked ? t('dns.missing') : t('dns.notChecked')}
                </Badge>
                {detailed && !r.valid && r.problem ? (
                  <Text size="xs" mt={4} maw={280} data-testid="record-problem">
                    {r.problem}
                  </Text>
                ) : null}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollArea>
  );
}
