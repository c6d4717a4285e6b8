import { Anchor, Paper, Stack, Switch, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, type Project, unwrap } from '../../api/client';
import { TWO_FACTOR_PAGE, useTwoFactorStatus } from '../../api/twoFactor';
import { ErrorState } from '../States';

/** Settings → Security: an owner requires 2FA of every member (PATCH /users/@me/projects/:id { requireTwoFactor }). */
export function RequireTwoFactorSwitch({ project }: { project: Project }) {
  const qc = useQueryClient();
  const mine = useTwoFactorStatus();
  const save = useMutation({
    meta: { success: 'Two-factor requirement saved' },
    mutationFn: (requireTwoFactor: boolean) => unwrap(api.PATCH('/users/@me/projects/{id}', { params: { path: { id: project.id } }, body: { requireTwoFactor } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['projects'] }),
  });
  const on = !!project.requireTwoFactor;
  // Requiring it without having it would shut the owner out (the API refuses with 409).
  const mayTurnOn = on || !!mine.data?.enabled;
  return (
    <Paper withBorder p="md" component="section" aria-label="Security">
      <Title order={2} size="h4" mb="sm">
        Security
      </Title>
      <Stack gap="xs">
        <Switch
          label="Require two-factor authentication"
          // Mantine's label wraps the description too: the name stays the label alone.
          aria-label="Require two-factor authentication"
          description="Members without it are asked to set it up before they can open the project. API keys are not affected."
          checked={on}
          disabled={save.isPending || !mayTurnOn}
          onChange={(e) => save.mutate(e.currentTarget.checked)}
        />
        {!mayTurnOn && mine.data ? (
          <Text size="sm" c="dimmed">
            Turn on <Anchor component={Link} to={TWO_FACTOR_PAGE}>two-factor authentication for your own account</Anchor> first.
          </Text>
        ) : null}
        {save.error ? <ErrorState error={save.error} title="Not saved" /> : null}
      </Stack>
    </Paper>
  );
}
