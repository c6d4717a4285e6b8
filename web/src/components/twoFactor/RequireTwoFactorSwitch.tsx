import { Anchor, Paper, Stack, Switch, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, type Project, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { TWO_FACTOR_PAGE, useTwoFactorStatus } from '../../api/twoFactor';
import { ErrorState } from '../States';
import { Trans, useTranslation } from 'react-i18next';

/** Settings → Security: an owner requires 2FA of every member (PATCH /users/@me/projects/:id { requireTwoFactor }). */
export function RequireTwoFactorSwitch({ project }: { project: Project }) {
  const { t } = useTranslation('settings');
  const qc = useQueryClient();
  const mine = useTwoFactorStatus();
  const save = useMutation({
    meta: { success: t('security.saved') },
    mutationFn: (requireTwoFactor: boolean) =>
      unwrap(api.PATCH('/users/@me/projects/{id}', { params: { path: { id: project.id } }, body: { requireTwoFactor } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.projects.all() }),
  });
  const on = !!project.requireTwoFactor;
  // Requiring it without having it would shut the owner out (the API refuses with 409).
  const mayTurnOn = on || !!mine.data?.enabled;
  return (
    <Paper withBorder p="md" component="section" aria-label={t('security.heading')}>
      <Title order={2} size="h4" mb="sm">
        {t('security.heading')}
      </Title>
      <Stack gap="xs">
        <Switch
          label={t('security.require')}
          // Mantine's label wraps the description too: the name stays the label alone.
          aria-label={t('security.require')}
          description={t('security.requireHelp')}
          checked={on}
          disabled={save.isPending || !mayTurnOn}
          onChange={(e) => save.mutate(e.currentTarget.checked)}
        />
        {!mayTurnOn && mine.data ? (
          <Text size="sm" c="dimmed">
            <Trans t={t} i18nKey="security.ownFirst" components={{ anchor: <Anchor component={Link} to={TWO_FACTOR_PAGE} /> }} />
          </Text>
        ) : null}
        {save.error ? <ErrorState error={save.error} title={t('notSaved')} /> : null}
      </Stack>
    </Paper>
  );
}
