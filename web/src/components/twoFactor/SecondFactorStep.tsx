import { useState, type FormEvent } from 'react';
import { Anchor, Button, Stack, Text, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { ErrorState } from '../States';
import { SecondFactorFields, useSecondFactor } from './SecondFactorFields';
import { useTranslation } from 'react-i18next';

/**
 * The sign-in step after the password of an account with 2FA: the password step left a 5-minute
 * ticket cookie, and POST /auth/login/two-factor turns it into the session.
 */
export function SecondFactorStep({ onSignedIn, onStartOver }: { onSignedIn: () => void; onStartOver: () => void }) {
  const { t } = useTranslation('account');
  const state = useSecondFactor();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await unwrap(api.POST('/auth/login/two-factor', { body: state.factor }));
      onSignedIn();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit}>
      <Stack>
        <Title order={1} size="h2">
          {t('secondFactor.heading')}
        </Title>
        <Text size="sm">{state.recovery ? t('secondFactor.enterRecovery') : t('secondFactor.enterCode')}</Text>
        <SecondFactorFields state={state} />
        {error ? <ErrorState error={error} title={t('secondFactor.notSignedIn')} /> : null}
        <Button type="submit" loading={busy} disabled={!state.filled}>
          {t('secondFactor.verify')}
        </Button>
        <Text size="sm">
          <Anchor component="button" type="button" onClick={onStartOver}>
            {t('secondFactor.startOver')}
          </Anchor>
        </Text>
      </Stack>
    </form>
  );
}
