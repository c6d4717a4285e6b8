import { Anchor, Center, Stack, Title } from '@mantine/core';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';

export default function NotFound() {
  const { t } = useTranslation('frame');
  return (
    <Center mih="60vh">
      <Stack align="center">
        <Title order={1}>{t('notFound')}</Title>
        <Anchor component={Link} to="/">
          {t('goToDashboard')}
        </Anchor>
      </Stack>
    </Center>
  );
}
