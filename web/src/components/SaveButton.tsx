import { Button, Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** A form's submit button with the "Saved." line that follows a successful save (read by screen readers as a status). */
export function SaveButton({ label, save }: { label: string; save: { isPending: boolean; isSuccess: boolean } }) {
  const { t } = useTranslation();
  return (
    <Group>
      <Button type="submit" loading={save.isPending}>
        {label}
      </Button>
      {save.isSuccess ? (
        <Text size="sm" c="green" role="status">
          {t('saved')}
        </Text>
      ) : null}
    </Group>
  );
}
