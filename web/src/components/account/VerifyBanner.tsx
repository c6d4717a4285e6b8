import { Alert } from '@mantine/core';
import { useMe } from '../../api/session';
import { ResendVerification } from './ResendVerification';

/** Shown on every dashboard screen until the signed-in address is confirmed. */
export function VerifyBanner() {
  const me = useMe();
  if (!me.data || me.data.emailVerified) return null;
  return (
    <Alert color="blue" mb="md" title="Confirm your email address" data-testid="verify-banner">
      We sent a link to {me.data.email}. Open it to confirm the address; until then, reset links and invitations may not reach you.
      <ResendVerification />
    </Alert>
  );
}
