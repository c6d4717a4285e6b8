import { Button, CopyButton } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** A copy button whose accessible name says what it copies (`what`: already in the reader's language). */
export function Copy({ value, what }: { value: string; what: string }) {
  const { t } = useTranslation('settings');
  return (
    <CopyButton value={value}>
      {({ copied, copy }) => (
        <Button
          size="compact-xs"
          variant="light"
          color={copied ? 'teal' : 'blue'}
          onClick={copy}
          aria-label={t('copy.label', { what })}
          style={{ flexShrink: 0 }}
        >
          {copied ? t('copy.copied') : t('copy.copy')}
        </Button>
      )}
    </CopyButton>
  );
}
