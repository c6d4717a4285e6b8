import { Badge, Code, Group, ScrollArea, Table, Text } from '@mantine/core';
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

/** What each record is for, as its owner reads it. */
const PURPOSES: Record<string, string> = {
  ownership: 'Proves the domain is yours',
  spf: 'Lets the provider send for the domain (SPF)',
  dmarc: "Tells receivers your domain's policy (DMARC)",
  dkim: 'Signs the mail (DKIM)',
  inbound: 'Receives replies at inbound.',
  bounce: 'Receives bounces',
};

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
  return (
    <ScrollArea>
      <Table aria-label={label} miw={detailed ? 700 : 640}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Type</Table.Th>
            <Table.Th>Name</Table.Th>
            <Table.Th>Value</Table.Th>
            {detailed ? (
              <>
                <Table.Th>Purpose</Table.Th>
                <Table.Th>Required</Table.Th>
              </>
            ) : null}
            <Table.Th>Valid</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {records.map((r) => (
            <Table.Tr key={`${r.purpose}-${r.type}-${r.name}`}>
              <Table.Td>{r.type}</Table.Td>
              <Table.Td>
                <Group gap={6} wrap="nowrap">
                  <Code>{r.name}</Code>
                  <Copy value={r.name} what={`${r.purpose} record name`} />
                </Group>
              </Table.Td>
              <Table.Td>
                <Group gap={6} wrap="nowrap">
                  <Code style={{ wordBreak: 'break-all', maxWidth: 320 }}>{r.value}</Code>
                  <Copy value={r.value} what={`${r.purpose} record value`} />
                </Group>
              </Table.Td>
              {detailed ? (
                <>
                  <Table.Td>{PURPOSES[r.purpose] ?? r.purpose}</Table.Td>
                  <Table.Td>{r.required ? 'yes' : 'no'}</Table.Td>
                </>
              ) : null}
              <Table.Td>
                <Badge color={r.valid ? 'green' : checked ? 'red' : 'gray'} variant="light" style={{ overflow: 'visible' }}>
                  {r.valid ? 'found' : checked ? 'missing' : 'not checked'}
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
