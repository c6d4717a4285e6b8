import { Alert, Button, Divider, Stack, Text } from '@mantine/core';
import { useSearchParams } from 'react-router';
import { useAppConfig } from '../api/session';
import { useTranslation } from 'react-i18next';

/**
 * Why a single sign-on came back to the login screen: `/app/login?error=<code>` from
 * GET /auth/sso/callback (api/routes/sso.ts; docs/security.md "Single sign-on"); the sentences are
 * the account catalogue's `sso.error` (web/src/i18n/en/account.ts).
 */
const SSO_ERRORS = ['state', 'denied', 'email_missing', 'email_unverified', 'domain', 'signups_disabled', 'failed'] as const;
type SsoError = (typeof SSO_ERRORS)[number];

/** The login screen's "Sign in with SSO", shown only when the server has an OpenID provider (GET /config `sso`). */
export function SsoSignIn() {
  const { t } = useTranslation('account');
  const config = useAppConfig();
  const [params] = useSearchParams();
  const code = SSO_ERRORS.find((c): c is SsoError => c === params.get('error'));
  const error = code ? t(`sso.error.${code}`) : null;
  const sso = config.data?.sso;
  return (
    <>
      {error ? (
        <Alert color="red" title={t('sso.failed')} role="alert">
          {error}
        </Alert>
      ) : null}
      {sso?.enabled ? (
        <Stack gap={4}>
          <Divider label={t('sso.or')} labelPosition="center" />
          {/* A full page load, not a fetch: the server answers with a redirect to the provider. */}
          <Button component="a" href="/auth/sso/start" variant="default">
            {t('sso.signIn')}
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
