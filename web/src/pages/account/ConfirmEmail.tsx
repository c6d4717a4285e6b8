import { Alert, Anchor, Button, Text } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../../api/client';
import { AuthCard } from '../../components/account/AuthCard';
import { ErrorState } from '../../components/States';

/** `/confirm-email?token=…`, the link mailed to a new address: the change applies on the button press. */
export default function ConfirmEmail() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const qc = useQueryClient();
  const confirm = useMutation({
    mutationFn: () => unwrap(api.POST('/auth/confirm-email-change', { body: { token } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['me'] }),
  });
  if (confirm.data) {
    return (
      <AuthCard title="Email address changed">
        <Text>Your account now uses {confirm.data.email}. Sign in with it from now on.</Text>
        <Anchor component={Link} to="/account" size="sm">
          Back to your account
        </Anchor>
      </AuthCard>
    );
  }
  const dead = !token || (confirm.error instanceof ApiError && (confirm.error.code === 'INVALID_TOKEN' || confirm.error.status === 422));
  if (dead) {
    return (
      <AuthCard title="This link no longer works">
        <Alert color="yellow" role="alert">
          This link has expired or was already used. Ask for the change again from your account.
        </Alert>
        <Anchor component={Link} to="/account" size="sm">
          Your account
        </Anchor>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Confirm your new email address">
      <Text size="sm">Press the button to make this address the one of your account.</Text>
      {confirm.error ? <ErrorState error={confirm.error} title="The address did not change" /> : null}
      <Button loading={confirm.isPending} onClick={() => confirm.mutate()}>
        Confirm new address
      </Button>
    </AuthCard>
  );
}
