import { Badge, Group, Paper, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import type { Check } from '../../api/emailEditor';
import { useTranslation } from 'react-i18next';

/**
 * "Checks": what the server found in the email (POST /templates/preview's `checks`), live while editing.
 * A check about a block selects it when clicked. Warnings never block saving or publishing.
 */
export function ChecksPanel({ checks, onSelect, pending }: { checks: Check[] | undefined; onSelect?(blockId: string): void; pending?: boolean }) {
  const { t } = useTranslation('editor');
  return (
    <Paper withBorder p="sm" component="section" aria-label={t('checks.heading')}>
      <Stack gap={6}>
        <Group justify="space-between">
          <Title order={2} size="h5">
            {t('checks.heading')}
          </Title>
          {checks ? (
            <Text size="xs" c="dimmed">
              {checks.length ? t('checks.count', { count: checks.length }) : ''}
            </Text>
          ) : null}
        </Group>
        {!checks ? (
          <Text size="sm" c="dimmed">
            {pending ? t('checks.checking') : t('checks.later')}
          </Text>
        ) : checks.length === 0 ? (
          <Text size="sm" c="green" data-testid="checks-clear">
            {t('checks.clear')}
          </Text>
        ) : (
          <Stack gap={4} data-testid="checks">
            {checks.map((c, i) => {
              const key = `${c.rule}-${c.blockId ?? ''}-${i}`;
              const body = (
                <Group key={key} gap={6} wrap="nowrap" align="flex-start">
                  <Badge size="xs" color={c.severity === 'error' ? 'red' : 'orange'} variant="light" style={{ flexShrink: 0 }}>
                    {t(`checks.severity.${c.severity}`)}
                  </Badge>
                  <Text size="sm" data-rule={c.rule}>
                    {c.message}
                  </Text>
                </Group>
              );
              return c.blockId && onSelect ? (
                <UnstyledButton key={key} onClick={() => onSelect(c.blockId!)} aria-label={t('checks.select', { message: c.message })}>
                  {body}
                </UnstyledButton>
              ) : (
                <div key={key}>{body}</div>
              );
            })}
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}
