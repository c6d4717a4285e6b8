import { useState, type FormEvent } from 'react';
import { Badge, Button, Group, Modal, Paper, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, Role, unwrap } from '../api/client';
import { keys } from '../api/queryKeys';
import { useTeam } from '../api/hooks/team';
import { useMe } from '../api/session';
import { useCurrentProject } from '../api/project';
import { ErrorState } from '../components/States';
import { ListTable } from '../components/ListPage';
import { dayWords } from '../api/dates';
import { useTranslation } from 'react-i18next';

const ROLES: Role[] = ['OWNER', 'ADMIN', 'MEMBER'];

/**
 * Members, invites and their roles (docs/roles.md): controls a role may not use are not shown —
 * MEMBERs see the list, ADMINs manage ADMINs and MEMBERs, OWNERs everyone. The server decides anyway.
 */
export default function Team() {
  const { t } = useTranslation('settings');
  // A role's code (the value sent) with its name in the reader's language (the label shown).
  const roleOptions = (roles: Role[]) => roles.map((r) => ({ value: r, label: t(`roles.${r}`) }));
  const { projectId, project } = useCurrentProject();
  const me = useMe();
  const qc = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('MEMBER');
  const [removing, setRemoving] = useState<{ userId: string; email: string } | null>(null);
  const path = { params: { path: { id: projectId } } };
  const team = useTeam(projectId);
  const refresh = () => qc.invalidateQueries({ queryKey: keys.team.all(projectId) });
  const invite = useMutation({
    meta: { success: t('team.invited') },
    mutationFn: () => unwrap(api.POST('/projects/{id}/members', { ...path, body: { email, role } })),
    onSuccess: () => {
      setEmail('');
      return refresh();
    },
  });
  const change = useMutation({
    meta: { success: t('team.roleChanged') },
    mutationFn: (v: { userId: string; role: Role }) =>
      unwrap(api.PATCH('/projects/{id}/members/{userId}', { params: { path: { id: projectId, userId: v.userId } }, body: { role: v.role } })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    meta: { success: t('team.removed') },
    mutationFn: (userId: string) => unwrap(api.DELETE('/projects/{id}/members/{userId}', { params: { path: { id: projectId, userId } } })),
    onSuccess: () => {
      setRemoving(null);
      return refresh();
    },
  });
  const withdraw = useMutation({
    meta: { success: t('team.withdrawn') },
    mutationFn: (inviteId: string) => unwrap(api.DELETE('/projects/{id}/invites/{inviteId}', { params: { path: { id: projectId, inviteId } } })),
    onSuccess: refresh,
  });

  const myRole = project?.role;
  const manages = myRole === 'OWNER' || myRole === 'ADMIN';
  const mayTouch = (target: Role) => myRole === 'OWNER' || (myRole === 'ADMIN' && target !== 'OWNER');
  const grantable = myRole === 'OWNER' ? ROLES : ROLES.filter((r) => r !== 'OWNER');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    invite.mutate();
  };
  return (
    <Stack>
      <Title order={1} size="h2">
        {t('team.heading')}
      </Title>
      {manages ? (
        <Paper withBorder p="md">
          <form onSubmit={submit}>
            <Group align="flex-end">
              <TextInput
                label={t('team.email')}
                type="email"
                required
                value={email}
                onChange={(e) => setEmail(e.currentTarget.value)}
                error={fieldError(invite.error, 'email')}
                w={280}
              />
              <Select
                label={t('team.role')}
                data={roleOptions(grantable)}
                value={role}
                onChange={(v) => setRole((v as Role) ?? 'MEMBER')}
                allowDeselect={false}
                w={140}
              />
              <Button type="submit" loading={invite.isPending}>
                {t('team.invite')}
              </Button>
            </Group>
          </form>
          {invite.error && !hasFieldErrors(invite.error) ? <ErrorState error={invite.error} title={t('team.notInvited')} /> : null}
          {invite.isSuccess ? (
            <Text size="sm" c="green" mt="xs">
              {t('team.invitedLine')}
            </Text>
          ) : null}
        </Paper>
      ) : null}
      {change.error ? <ErrorState error={change.error} title={t('team.roleNotChanged')} /> : null}
      {withdraw.error ? <ErrorState error={withdraw.error} /> : null}
      <ListTable
        query={team}
        items={(d) => d.members}
        label={t('team.members')}
        miw={560}
        head={
          <>
            <Table.Th>{t('team.email')}</Table.Th>
            <Table.Th>{t('team.role')}</Table.Th>
            <Table.Th>{t('team.joined')}</Table.Th>
            <Table.Th />
          </>
        }
        row={(m) => (
          <Table.Tr key={m.userId}>
            <Table.Td>
              {m.email}{' '}
              {m.userId === me.data?.id ? (
                <Badge variant="light" size="xs">
                  {t('team.you')}
                </Badge>
              ) : null}
            </Table.Td>
            <Table.Td>
              {mayTouch(m.role) ? (
                <Select
                  aria-label={t('team.roleOf', { email: m.email })}
                  data={roleOptions(myRole === 'OWNER' ? ROLES : grantable)}
                  value={m.role}
                  allowDeselect={false}
                  onChange={(v) => v && v !== m.role && change.mutate({ userId: m.userId, role: v as Role })}
                  w={130}
                  size="xs"
                />
              ) : (
                <Badge variant="outline">{t(`roles.${m.role}`)}</Badge>
              )}
            </Table.Td>
            <Table.Td>{dayWords(m.joinedAt)}</Table.Td>
            <Table.Td>
              {mayTouch(m.role) || m.userId === me.data?.id ? (
                <Button size="compact-xs" color="red" variant="subtle" onClick={() => setRemoving({ userId: m.userId, email: m.email })}>
                  {m.userId === me.data?.id ? t('team.leave') : t('team.remove')}
                </Button>
              ) : null}
            </Table.Td>
          </Table.Tr>
        )}
        empty={null}
      />
      {team.data ? (
        <Title order={2} size="h4">
          {t('team.pending')}
        </Title>
      ) : null}
      {/* The same reply as the members: its loading and error are shown once, above. */}
      <ListTable
        query={team}
        states={false}
        items={(d) => d.invites}
        label={t('team.pending')}
        row={(i) => (
          <Table.Tr key={i.id}>
            <Table.Td>{i.email}</Table.Td>
            <Table.Td>
              <Badge variant="outline">{t(`roles.${i.role}`)}</Badge>
            </Table.Td>
            <Table.Td>{dayWords(i.createdAt)}</Table.Td>
            <Table.Td>
              {mayTouch(i.role) ? (
                <Button size="compact-xs" variant="subtle" color="red" onClick={() => withdraw.mutate(i.id)}>
                  {t('team.withdraw')}
                </Button>
              ) : null}
            </Table.Td>
          </Table.Tr>
        )}
        empty={t('team.noPending')}
      />
      <Modal opened={!!removing} onClose={() => setRemoving(null)} title={removing?.userId === me.data?.id ? t('team.leaveTitle') : t('team.removeTitle')}>
        <Stack>
          <Text>{t('team.losesAccess', { email: removing?.email ?? '' })}</Text>
          {remove.error ? <ErrorState error={remove.error} /> : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setRemoving(null)}>
              {t('cancel')}
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => removing && remove.mutate(removing.userId)}>
              {removing?.userId === me.data?.id ? t('team.leave') : t('team.remove')}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
