import { useState } from 'react';
import { Anchor, Center, Paper, Stack, Title } from '@mantine/core';
import { Link, Navigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { useMe } from '../api/session';
import { keys } from '../api/queryKeys';
import { useTwoFactorStatus } from '../api/twoFactor';
import { ErrorState, Loading } from '../components/States';
import { Enrolment } from '../components/twoFactor/Enrolment';
import { Enabled } from '../components/twoFactor/Enabled';
import { RecoveryCodes } from '../components/twoFactor/RecoveryCodes';
import { useTranslation } from 'react-i18next';

/** /app/account/two-factor: turn two-factor authentication on or off, and renew recovery codes. */
export default function TwoFactor() {
  const { t } = useTranslation('account');
  const me = useMe();
  const status = useTwoFactorStatus(!!me.data);
  const qc = useQueryClient();
  // Recovery codes just issued: shown until the user says they saved them.
  const [codes, setCodes] = useState<string[] | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: keys.twoFactor() });
  const issued = (recoveryCodes: string[]) => {
    setCodes(recoveryCodes);
    refresh();
  };

  if (me.isPending) return <Loading />;
  if (me.error) return <ErrorState error={me.error} />;
  if (!me.data) return <Navigate to="/login" replace />;

  let body = <Loading />;
  if (status.error) body = <ErrorState error={status.error} />;
  else if (codes) body = <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />;
  else if (status.data?.enabled) body = <Enabled status={status.data} onNewCodes={issued} onDisabled={refresh} />;
  else if (status.data) body = <Enrolment onEnabled={issued} />;

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={560}>
        <Stack>
          <Anchor component={Link} to="/" size="sm">
            {t('twoFactor.back')}
          </Anchor>
          <Title order={1} size="h2">
            {t('twoFactor.heading')}
          </Title>
          {body}
        </Stack>
      </Paper>
    </Center>
  );
}
