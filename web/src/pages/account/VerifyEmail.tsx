import { Alert, Anchor, Button, Text } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../../api/client';
import { useMe } from '../../api/session';
import { AuthCard } from '../../components/account/AuthCard';
import { ResendVerification } from '../../components/account/ResendVerification';
import { ErrorState } from '../../components/States';

/**
 * `/verify-email?token=…`, the link of the verification email. Confirming is a button press, not
 * the opening of the page: mail scanners open links (DESIGN §7, changes on POST only).
 */
export default function VerifyEmail() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const me = useMe();
  const qc = useQueryClient();
  const verify = useMutation({
    mutationFn: () => unwrap(api.POST('/auth/verify-email', { body: { token } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['me'] }),
  });
  const continueLink = (
    <Anchor component={Link} to="/" size="sm">
      Continue to the dashboard
    </Anchor>
  );
  if (verify.data) {
    return (
      <AuthCard title="Email address confirmed">
        <Text>{verify.data.email} is confirmed.</Text>
        {continueLink}
      </AuthCard>
    );
  }
  const dead = !token || (verify.error instanceof ApiError && verify.error.status < 500);
  if (dead) {
    return (
      <AuthCard title="This link no longer works">
        <Alert color="yellow" role="alert">
          This verification link has expired or was already used: only the newest link works.
        </Alert>
        {me.data && !me.data.emailVerified ? <ResendVerification /> : null}
        {me.data ? continueLink : <Anchor component={Link} to="/login" size="sm">Log in to ask for a new one</Anchor>}
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Confirm your email address">
      <Text size="sm">Press the button to confirm that this address is yours.</Text>
      {verify.error ? <ErrorState error={verify.error} /> : null}
      <Button loading={verify.isPending} onClick={() => verify.mutate()}>
        Confirm email address
      </Button>
    </AuthCard>
  );
}
