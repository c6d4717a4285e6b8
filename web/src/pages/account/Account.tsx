import { Anchor, Container, Group, Stack, Title } from '@mantine/core';
import { Link, Navigate } from 'react-router';
import { useMe } from '../../api/session';
import { ErrorState, Loading } from '../../components/States';
import { VerifyBanner } from '../../components/account/VerifyBanner';
import { ProfileSection } from '../../components/account/ProfileSection';
import { EmailSection } from '../../components/account/EmailSection';
import { PasswordSection } from '../../components/account/PasswordSection';
import { SecuritySection } from '../../components/account/SecuritySection';
import { SessionsSection } from '../../components/account/SessionsSection';
import { useTranslation } from 'react-i18next';

/** `/account`: the signed-in person's own account, apart from any project (docs/dashboard.md "Your account"). */
export default function Account() {
  const { t } = useTranslation('account');
  const me = useMe();
  if (me.isPending) return <Loading />;
  if (me.error) return <ErrorState error={me.error} />;
  if (!me.data) return <Navigate to="/login" replace />;
  return (
    <Container size="md" py="lg">
      <Stack>
        <Group justify="space-between">
          <Title order={1} size="h2">
            {t('page.heading')}
          </Title>
          <Anchor component={Link} to="/" size="sm">
            {t('page.back')}
          </Anchor>
        </Group>
        <VerifyBanner />
        <ProfileSection user={me.data} />
        <EmailSection user={me.data} />
        <PasswordSection />
        <SecuritySection />
        <SessionsSection />
      </Stack>
    </Container>
  );
}
