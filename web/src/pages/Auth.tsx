import { useState, type FormEvent } from 'react';
import { Anchor, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { Link, useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { ErrorState } from '../components/States';
import { SecondFactorStep } from '../components/twoFactor/SecondFactorStep';

/** Sign up and log in share one form: "Email", "Password", and the action's button. */
export function AuthForm({ mode }: { mode: 'signup' | 'login' }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // An account with 2FA: the password was right, the code comes next (docs/api.md "Two-factor authentication").
  const [secondFactor, setSecondFactor] = useState(false);
  const navigate = useNavigate();
  const qc = useQueryClient();
  const action = mode === 'signup' ? 'Sign up' : 'Log in';

  function signedIn() {
    // Whatever was cached belongs to the signed-out visitor (a null user): start afresh.
    qc.removeQueries();
    // A new account has no project yet: its first stop is the project form.
    navigate(mode === 'signup' ? '/new-project' : '/', { replace: true });
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = { email, password };
      const answer = await unwrap<object>(mode === 'signup' ? api.POST('/auth/signup', { body }) : api.POST('/auth/login', { body }));
      if ('twoFactorRequired' in answer && answer.twoFactorRequired) {
        setSecondFactor(true);
        return;
      }
      signedIn();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={420}>
        {secondFactor ? (
          <SecondFactorStep
            onSignedIn={signedIn}
            onStartOver={() => {
              setSecondFactor(false);
              setPassword('');
            }}
          />
        ) : (
          <form onSubmit={submit}>
            <Stack>
              <Title order={1} size="h2">
                {mode === 'signup' ? 'Create your account' : 'Log in'}
              </Title>
              <TextInput label="Email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
              <PasswordInput
                label="Password"
                autoComplete={mode === 'signup' ? 'new-password' : 'current-password'}
                required
                value={password}
                onChange={(e) => setPassword(e.currentTarget.value)}
              />
              {error ? <ErrorState error={error} title={`${action} failed`} /> : null}
              <Button type="submit" loading={busy}>
                {action}
              </Button>
              <Text size="sm">
                {mode === 'signup' ? (
                  <>
                    Already have an account? <Anchor component={Link} to="/login">Log in instead</Anchor>
                  </>
                ) : (
                  <>
                    New here? <Anchor component={Link} to="/signup">Create an account</Anchor> ·{' '}
                    <Anchor href="/reset-password">Forgot your password?</Anchor>
                  </>
                )}
              </Text>
            </Stack>
          </form>
        )}
      </Paper>
    </Center>
  );
}
