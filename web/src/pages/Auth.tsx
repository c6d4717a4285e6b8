import { useState, type FormEvent } from 'react';
import { Anchor, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, unwrap } from '../api/client';
import { ErrorState } from '../components/States';
import { SsoSignIn } from '../components/SsoSignIn';
import { invitePath } from './account/links';
import { SecondFactorStep } from '../components/twoFactor/SecondFactorStep';
import { useTranslation } from 'react-i18next';

/**
 * Sign up and log in share one form: "Email", "Password", and the action's button. From an
 * invitation (`?invite=<token>&email=<invited address>`), the address comes filled in, and the
 * person lands in the invited project.
 */
export function AuthForm({ mode }: { mode: 'signup' | 'login' }) {
  const { t } = useTranslation('account');
  const [params] = useSearchParams();
  const invite = params.get('invite');
  const [email, setEmail] = useState(params.get('email') ?? '');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // An account with 2FA: the password was right, the code comes next (docs/api.md "Two-factor authentication").
  // `?step=two-factor`: a reset link or single sign-on proved the rest and left the ticket (api/signIn.ts).
  const [secondFactor, setSecondFactor] = useState(mode === 'login' && params.get('step') === 'two-factor');
  const navigate = useNavigate();
  const qc = useQueryClient();
  const action = mode === 'signup' ? t('auth.signUp') : t('auth.logIn');

  /**
   * Where the person goes once signed in: from an invitation, into its project (accepting it proves the
   * address, so a new account gets no verification email); a new account otherwise to its first project
   * form once the verification email is on its way; a returning one home.
   */
  async function destination(): Promise<string> {
    if (invite) {
      try {
        const joined = await unwrap(api.POST('/auth/invites/accept', { body: { token: invite } }));
        return `/p/${joined.projectId}`;
      } catch {
        // Another address was typed, or the invite is gone: the invitation screen says which.
        return invitePath(invite);
      }
    }
    if (mode === 'login') return '/';
    // Best effort: the banner offers "Resend verification email" when this one is lost.
    await unwrap(api.POST('/auth/request-verification')).catch(() => undefined);
    return '/new-project';
  }

  async function signedIn() {
    // Whatever was cached belongs to the signed-out visitor (a null user): start afresh.
    qc.removeQueries();
    void navigate(await destination(), { replace: true });
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
      await signedIn();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const carry = invite ? `?${new URLSearchParams({ email, invite }).toString()}` : '';
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w="100%" maw={420}>
        {secondFactor ? (
          <SecondFactorStep
            onSignedIn={() => void signedIn()}
            onStartOver={() => {
              setSecondFactor(false);
              setPassword('');
            }}
          />
        ) : (
          <form onSubmit={submit}>
            <Stack>
              <Title order={1} size="h2">
                {mode === 'signup' ? t('auth.createHeading') : t('auth.logIn')}
              </Title>
              {invite ? (
                <Text size="sm" c="dimmed">
                  {mode === 'signup' ? t('auth.inviteSignup') : t('auth.inviteLogin')}
                </Text>
              ) : null}
              <TextInput
                label={t('auth.email')}
                type="email"
                autoComplete="email"
                required
                value={email}
                error={fieldError(error, 'email')}
                onChange={(e) => setEmail(e.currentTarget.value)}
              />
              <PasswordInput
                label={t('auth.password')}
                autoComplete={mode === 'signup' ? 'new-password' : 'current-password'}
                required
                value={password}
                error={fieldError(error, 'password')}
                onChange={(e) => setPassword(e.currentTarget.value)}
              />
              {error && !hasFieldErrors(error) ? <ErrorState error={error} title={mode === 'signup' ? t('auth.signUpFailed') : t('auth.logInFailed')} /> : null}
              <Button type="submit" loading={busy}>
                {action}
              </Button>
              <SsoSignIn />
              <Text size="sm">
                {mode === 'signup' ? (
                  <>
                    {t('auth.haveAccount')}{' '}
                    <Anchor component={Link} to={`/login${carry}`}>
                      {t('auth.logInInstead')}
                    </Anchor>
                  </>
                ) : (
                  <>
                    {t('auth.newHere')}{' '}
                    <Anchor component={Link} to={`/signup${carry}`}>
                      {t('auth.createAccount')}
                    </Anchor>{' '}
                    ·{' '}
                    <Anchor component={Link} to="/forgot-password">
                      {t('auth.forgot')}
                    </Anchor>
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
