import { Badge, Button, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { useSessions } from '../../api/hooks/account';
import { ErrorState } from '../States';
import { ListTable } from '../ListPage';
import { i18n } from '../../i18n';
import { momentWords } from '../../api/dates';
import { useTranslation } from 'react-i18next';

/** "Chrome on Linux" from a user agent: enough to tell devices apart; the full string is the cell's title. */
export function describeAgent(ua: string | null): string {
  const t = i18n.getFixedT(null, 'account');
  if (!ua) return t('sessions.unknownDevice');
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /Firefox\//.test(ua)
      ? 'Firefox'
      : /Chrom(e|ium)\//.test(ua)
        ? 'Chrome'
        : /Safari\//.test(ua)
          ? 'Safari'
          : ua.split(/[\s/]/)[0] || t('sessions.unknownBrowser');
  const os = /Android/.test(ua)
    ? 'Android'
    : /iPhone|iPad/.test(ua)
      ? 'iOS'
      : /Mac OS X/.test(ua)
        ? 'macOS'
        : /Windows/.test(ua)
          ? 'Windows'
          : /Linux/.test(ua)
            ? 'Linux'
            : null;
  return os ? t('sessions.browserOn', { browser, os }) : browser;
}

/** The sessions that can still be used, "Sign out" on each, and "Sign out everywhere" (this one too). */
export function SessionsSection() {
  const { t } = useTranslation('account');
  const qc = useQueryClient();
  const navigate = useNavigate();
  const sessions = useSessions();
  const toLogin = () => {
    qc.clear();
    navigate('/login', { replace: true });
  };
  const signOut = useMutation({
    meta: { success: t('sessions.signedOut') },
    mutationFn: (id: string) => unwrap(api.DELETE('/users/@me/sessions/{id}', { params: { path: { id } } })).then(() => id),
    onSuccess: (id) => (sessions.data?.find((s) => s.id === id)?.current ? toLogin() : qc.invalidateQueries({ queryKey: keys.sessions() })),
  });
  const everywhere = useMutation({ mutationFn: () => unwrap(api.POST('/auth/logout-all')), onSuccess: toLogin });
  return (
    <Paper withBorder p="md">
      <Stack>
        <Group justify="space-between">
          <Title order={2} size="h4">
            {t('sessions.heading')}
          </Title>
          <Button color="red" variant="light" loading={everywhere.isPending} onClick={() => everywhere.mutate()}>
            {t('sessions.everywhere')}
          </Button>
        </Group>
        <Text size="sm" c="dimmed">
          {t('sessions.intro')}
        </Text>
        {signOut.error ? <ErrorState error={signOut.error} title={t('sessions.notSignedOut')} /> : null}
        {everywhere.error ? <ErrorState error={everywhere.error} title={t('sessions.notSignedOut')} /> : null}
        <ListTable
          query={sessions}
          items={(list) => list}
          label={t('sessions.heading')}
          miw={620}
          head={
            <>
              <Table.Th>{t('sessions.device')}</Table.Th>
              <Table.Th>{t('sessions.ip')}</Table.Th>
              <Table.Th>{t('sessions.signedIn')}</Table.Th>
              <Table.Th>{t('sessions.lastSeen')}</Table.Th>
              <Table.Th />
            </>
          }
          row={(s) => (
            <Table.Tr key={s.id}>
              <Table.Td title={s.userAgent ?? undefined}>
                {describeAgent(s.userAgent)}{' '}
                {s.current ? (
                  <Badge size="xs" variant="light">
                    {t('sessions.thisBrowser')}
                  </Badge>
                ) : null}
              </Table.Td>
              <Table.Td>{s.ip ?? '—'}</Table.Td>
              <Table.Td>{momentWords(s.createdAt)}</Table.Td>
              <Table.Td>{momentWords(s.lastSeenAt)}</Table.Td>
              <Table.Td>
                <Button
                  size="compact-xs"
                  variant="subtle"
                  color="red"
                  loading={signOut.isPending && signOut.variables === s.id}
                  onClick={() => signOut.mutate(s.id)}
                >
                  {t('sessions.signOut')}
                </Button>
              </Table.Td>
            </Table.Tr>
          )}
          empty={null}
        />
      </Stack>
    </Paper>
  );
}
