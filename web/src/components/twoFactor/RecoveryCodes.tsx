import { Alert, Button, Code, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { Copy } from '../Copy';
import { useTranslation } from 'react-i18next';

/** Recovery codes, shown once: only their hashes are kept, so this is the one chance to save them. */
export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const { t } = useTranslation('account');
  return (
    <Stack>
      <Alert color="yellow" title={t('twoFactor.saveTitle')}>
        {t('twoFactor.saveBody')}
      </Alert>
      <SimpleGrid cols={2} spacing="xs" data-testid="recovery-codes" aria-label={t('twoFactor.codes')}>
        {codes.map((c) => (
          <Code key={c} fz="md">
            {c}
          </Code>
        ))}
      </SimpleGrid>
      <Group>
        <Copy value={codes.join('\n')} what="recovery codes" />
        <Text size="sm" c="dimmed">
          {t('twoFactor.codeCount', { count: codes.length })}
        </Text>
      </Group>
      <Button onClick={onDone} w="fit-content">
        {t('twoFactor.saved')}
      </Button>
    </Stack>
  );
}
