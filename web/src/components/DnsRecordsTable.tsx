import { Badge, Code, Group, ScrollArea, Table } from '@mantine/core';
import { Copy } from './Copy';

/** A DNS record a domain must publish, as the sender-domain and tracking-domain routes list them. */
export interface DnsRecord {
  type: string;
  name: string;
  value: string;
  purpose: string;
  required: boolean;
  valid: boolean;
}

/**
 * The records to publish, each name and value with its copy button and whether the last check
 * found it. `detailed` adds the purpose and required columns (sender domains list optional ones).
 */
export function DnsRecordsTable({ label, records, detailed = false }: { label: string; records: readonly DnsRecord[]; detailed?: boolean }) {
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
                  <Table.Td>{r.purpose}</Table.Td>
                  <Table.Td>{r.required ? 'yes' : 'no'}</Table.Td>
                </>
              ) : null}
              <Table.Td>
                <Badge color={r.valid ? 'green' : 'gray'} variant="light" style={{ overflow: 'visible' }}>
                  {r.valid ? 'found' : 'missing'}
                </Badge>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </ScrollArea>
  );
}
