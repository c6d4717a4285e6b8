import { Alert, Anchor, Button, Group, Text } from '@mantine/core';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { useInvite } from '../../api/hooks/account';
import { useMe, useSignedOut } from '../../api/session';
import { AuthCard } from '../../components/account/AuthCard';
import { ErrorState, Loading } from '../../components/States';
import { withInvite } from './links';
import { Trans, useTranslation } from 'react-i18next';
import { momentWords } from '../../api/dates';

/**
 * `/invite?token=…`, the link of an invitation email: the offer, then "Accept invite" for the
 * account of the invited address. Someone without an account creates one with the address filled
 * in and joins at once: the token came through that inbox, so it proves the address (no second mail).
 */
export default function Invite() {
  const { t } = useTranslation(['account', 'frame']);
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const me = useMe();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const signOut = useSignedOut();
  const offer = useInvite(token);
  const accept = useMutation({
    mutationFn: () => unwrap(api.POST('/auth/invites/accept', { body: { token } })),
    onSuccess: async (joined) => {
      await qc.invalidateQueries({ queryKey: keys.projects.all() });
      await qc.invalidateQueries({ queryKey: keys.me() });
      void navigate(`/p/${joined.projectId}`, { replace: true });
    },
  });

  if (!token || (offer.error instanceof ApiError && offer.error.status === 404)) {
    return (
      <AuthCard title={t('invite.dead')}>
        <Alert color="yellow" role="alert">
          {t('invite.deadBody')}
        </Alert>
        <Anchor component={Link} to="/" size="sm">
          {t('continue')}
        </Anchor>
      </AuthCard>
    );
  }
  if (offer.isPending || me.isPending) return <Loading />;
  if (offer.error) return <ErrorState error={offer.error} />;
  const o = offer.data;
  const user = me.data;
  return (
    <AuthCard title={t('invite.heading')}>
      <Text>
        <Trans t={t} i18nKey="invite.offer" values={{ project: o.projectName, role: o.role }} components={{ strong: <strong /> }} />
      </Text>
      <Text size="sm" c="dimmed">
        {t('invite.forWhom', { email: o.email, when: momentWords(o.expiresAt) })}
      </Text>
      {!user ? (
        <Group>
          <Button component={Link} to={withInvite('/signup', o.email, token)}>
            {t('auth.createAccount')}
          </Button>
          <Button component={Link} to={withInvite('/login', o.email, token)} variant="default">
            {t('auth.logIn')}
          </Button>
        </Group>
      ) : user.email.toLowerCase() !== o.email ? (
        <>
          <Alert color="yellow" role="alert">
            {t('invite.otherAccount', { user: user.email, email: o.email })}
          </Alert>
          <Button
            variant="default"
            onClick={async () => {
              await signOut();
              void navigate(withInvite('/login', o.email, token));
            }}
          >
            {t('frame:logOut')}
          </Button>
        </>
      ) : (
        <>
          {accept.error ? <ErrorState error={accept.error} title={t('invite.notAccepted')} /> : null}
          <Button loading={accept.isPending} onClick={() => accept.mutate()}>
            {t('invite.accept')}
          </Button>
        </>
      )}
    </AuthCard>
  );
}
