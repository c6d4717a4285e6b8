import { Alert, Button, Divider, Stack, Text } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { useAppConfig } from '../api/session';

/**
 * Why a single sign-on came back to the login screen: `/app/login?error=<code>` from
 * GET /auth/sso/callback (api/routes/sso.ts; docs/security.md "Single sign-on").
 */
const SSO_ERRORS: Record<string, string> = {
  state: 'That single sign-on attempt expired or was not started in this browser. Please try again.',
  denied: 'Sign-in was cancelled at your identity provider.',
  email_missing: 'Your identity provider did not share an email address, so no account could be found for you.',
  email_unverified: 'Your identity provider has not verified your email address. Verify it there, then try again.',
  domain: 'Your email address is not in a domain allowed to sign in to this server.',
  signups_disabled: 'There is no account for your email address, and this server does not create new ones. Ask an administrator.',
  failed: 'Single sign-on did not work: your identity provider could not be reached or its answer was refused. Please try again.',
};

/** The login screen's "Sign in with SSO", shown only when the server has an OpenID provider (GET /config `sso`). */
export function SsoSignIn() {
  const config = useAppConfig();
  const [params] = useSearchParams();
  const error = SSO_ERRORS[params.get('error') ?? ''];
  const sso = config.data?.sso;
  return (
    <>
      {error ? (
        <Alert color="red" title="Single sign-on failed" role="alert">
          {error}
        </Alert>
      ) : null}
      {sso?.enabled ? (
        <Stack gap={4}>
          <Divider label="or" labelPosition="center" />
          {/* A full page load, not a fetch: the server answers with a redirect to the provider. */}
          <Button component="a" href="/auth/sso/start" variant="default">
            Sign in with SSO
          </Button>
          {sso.name ? (
            <Text size="xs" c="dimmed" ta="center">
              {sso.name}
            </Text>
          ) : null}
        </Stack>
      ) : null}
    </>
  );
}
