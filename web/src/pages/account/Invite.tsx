import { Alert, Anchor, Button, Group, Text } from '@mantine/core';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../../api/client';
import { useMe, useSignedOut } from '../../api/session';
import { AuthCard } from '../../components/account/AuthCard';
import { ErrorState, Loading } from '../../components/States';
import { withInvite } from './links';


/**
 * `/invite?token=…`, the link of an invitation email: the offer, then "Accept invite" for the
 * account of the invited address. Someone without an account creates one with the address filled
 * in and joins at once: the token came through that inbox, so it proves the address (no second mail).
 */
export default function Invite() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const me = useMe();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const signOut = useSignedOut();
  const offer = useQuery({
    queryKey: ['invite', token],
    queryFn: () => unwrap(api.GET('/auth/invites/{token}', { params: { path: { token } } })),
    enabled: !!token,
  });
  const accept = useMutation({
    mutationFn: () => unwrap(api.POST('/auth/invites/accept', { body: { token } })),
    onSuccess: async (joined) => {
      await qc.invalidateQueries({ queryKey: ['projects'] });
      await qc.invalidateQueries({ queryKey: ['me'] });
      void navigate(`/p/${joined.projectId}`, { replace: true });
    },
  });

  if (!token || (offer.error instanceof ApiError && offer.error.status === 404)) {
    return (
      <AuthCard title="This invitation no longer works">
        <Alert color="yellow" role="alert">
          It was already accepted, withdrawn, or has expired. Ask whoever invited you to invite you again.
        </Alert>
        <Anchor component={Link} to="/" size="sm">
          Continue
        </Anchor>
      </AuthCard>
    );
  }
  if (offer.isPending || me.isPending) return <Loading />;
  if (offer.error) return <ErrorState error={offer.error} />;
  const o = offer.data;
  const user = me.data;
  return (
    <AuthCard title="Join your team">
      <Text>
        You are invited to the project <strong>{o.projectName}</strong> as <strong>{o.role}</strong>.
      </Text>
      <Text size="sm" c="dimmed">
        The invitation is for {o.email} and expires {new Date(o.expiresAt).toLocaleString()}.
      </Text>
      {!user ? (
        <Group>
          <Button component={Link} to={withInvite('/signup', o.email, token)}>
            Create an account
          </Button>
          <Button component={Link} to={withInvite('/login', o.email, token)} variant="default">
            Log in
          </Button>
        </Group>
      ) : user.email.toLowerCase() !== o.email ? (
        <>
          <Alert color="yellow" role="alert">
            You are signed in as {user.email}. Log in with {o.email} to accept this invitation.
          </Alert>
          <Button
            variant="default"
            onClick={async () => {
              await signOut();
              void navigate(withInvite('/login', o.email, token));
            }}
          >
            Log out
          </Button>
        </>
      ) : (
        <>
          {accept.error ? <ErrorState error={accept.error} title="Not accepted" /> : null}
          <Button loading={accept.isPending} onClick={() => accept.mutate()}>
            Accept invite
          </Button>
        </>
      )}
    </AuthCard>
  );
}
