import { useState, type FormEvent } from 'react';
import { Anchor, Button, Stack, Text, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { ErrorState } from '../States';
import { SecondFactorFields, useSecondFactor } from './SecondFactorFields';

/**
 * The sign-in step after the password of an account with 2FA: the password step left a 5-minute
 * ticket cookie, and POST /auth/login/two-factor turns it into the session.
 */
export function SecondFactorStep({ onSignedIn, onStartOver }: { onSignedIn: () => void; onStartOver: () => void }) {
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
          Two-factor authentication
        </Title>
        <Text size="sm">{state.recovery ? 'Enter one of your recovery codes.' : 'Enter the code your authenticator app shows for this account.'}</Text>
        <SecondFactorFields state={state} />
        {error ? <ErrorState error={error} title="Not signed in" /> : null}
        <Button type="submit" loading={busy} disabled={!state.filled}>
          Verify
        </Button>
        <Text size="sm">
          <Anchor component="button" type="button" onClick={onStartOver}>
            Start over
          </Anchor>
        </Text>
      </Stack>
    </form>
  );
}
