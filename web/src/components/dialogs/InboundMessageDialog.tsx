import { Anchor, Badge, Code, Group, Modal, ScrollArea, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { useInboundMessage } from '../../api/hooks/inbound';
import { ErrorState, Loading } from '../States';
import { INBOUND_KINDS, type InboundSummary } from '../inbound/kinds';
import { momentWords, numberWords } from '../../api/dates';
import { useTranslation } from 'react-i18next';

/** A label and its value, a line of the message's facts. */
function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" style={{ wordBreak: 'break-word' }}>
        {children ?? '—'}
      </Text>
    </div>
  );
}

/** One received message: what it is, the contact it matched, its authentication, its parsed headers and its source (GET /inbound/:id). */
export function InboundMessageDialog({ projectId, message, onClose }: { projectId: string; message: InboundSummary | null; onClose(): void }) {
  const { t } = useTranslation('mail');
  const full = useInboundMessage(projectId, message?.id);
  const kind = message ? INBOUND_KINDS[message.kind] : null;
  return (
    <Modal opened={!!message} onClose={onClose} title={message?.subject || t('inbound.noSubject')} size="xl">
      {message && kind ? (
        <Stack>
          <Group>
            <Badge color={kind.color} variant="light">
              {t(`inbound.kinds.${message.kind}.label`)}
            </Badge>
            <Text size="sm" c="dimmed">
              {t(`inbound.kinds.${message.kind}.about`)}
            </Text>
          </Group>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <Fact label={t('inbound.received')}>{momentWords(message.createdAt)}</Fact>
            <Fact label={t('inbound.from')}>{message.from}</Fact>
            <Fact label={t('inbound.to')}>{message.to.join(', ')}</Fact>
            <Fact label={t('inbound.envelope')}>{message.mailFrom ?? t('inbound.noEnvelope')}</Fact>
            <Fact label={t('inbound.contact')}>
              {message.contactId ? (
                <Anchor component={Link} to={`/p/${projectId}/contacts/${message.contactId}`} onClick={onClose}>
                  {message.contactEmail ?? t('inbound.erasedContact')}
                </Anchor>
              ) : (
                t('inbound.noContact')
              )}
            </Fact>
            <Fact label={t('inbound.aboutEmail')}>{message.emailId ? <Code>{message.emailId}</Code> : null}</Fact>
            {message.status ? <Fact label={t('inbound.status')}>{message.status}</Fact> : null}
            {message.diagnostic ? <Fact label={t('inbound.diagnostic')}>{message.diagnostic}</Fact> : null}
            {message.auth ? (
              <Fact label={t('inbound.authentication')}>
                {t('inbound.authResults', { spf: message.auth.spf, dkim: message.auth.dkim, dmarc: message.auth.dmarc })}
              </Fact>
            ) : null}
          </SimpleGrid>
          <Title order={3} size="h5">
            {t('inbound.headers')}
          </Title>
          {full.isPending ? <Loading /> : null}
          {full.error ? <ErrorState error={full.error} title={t('inbound.notLoaded')} /> : null}
          {full.data ? (
            <>
              <ScrollArea.Autosize mah={320} viewportProps={{ tabIndex: 0 }}>
                <Table aria-label={t('inbound.headers')} fz="xs" striped>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>{t('inbound.name')}</Table.Th>
                      <Table.Th>{t('inbound.value')}</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {full.data.headers.map((h, i) => (
                      // A message may repeat a field (Received): the position keeps the keys apart.
                      <Table.Tr key={`${i}-${h.name}`}>
                        <Table.Td style={{ whiteSpace: 'nowrap', verticalAlign: 'top' }}>{h.name}</Table.Td>
                        <Table.Td style={{ wordBreak: 'break-all' }}>{h.value}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </ScrollArea.Autosize>
              <details>
                <summary>
                  <Text span size="sm">
                    {t('inbound.source', { size: numberWords(full.data.size) })}
                  </Text>
                </summary>
                <ScrollArea.Autosize mah={320} viewportProps={{ tabIndex: 0 }}>
                  <Code block>{full.data.raw}</Code>
                </ScrollArea.Autosize>
              </details>
            </>
          ) : null}
        </Stack>
      ) : null}
    </Modal>
  );
}
