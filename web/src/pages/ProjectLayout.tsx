import { Alert, Anchor, AppShell, Burger, Button, Group, NavLink, ScrollArea, Select, Text, Title } from '@mantine/core';
import { ColorSchemeSwitch } from '../components/ColorSchemeSwitch';
import { MAIN_ID } from '../components/AppFrame';
import { useDisclosure } from '@mantine/hooks';
import { Link, Navigate, NavLink as RouterNavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { useAppConfig, useMe, useSignedOut } from '../api/session';
import { useCurrentProject } from '../api/project';
import { SECTIONS } from '../routes';
import { ErrorState, Loading } from '../components/States';
import { VerifyBanner } from '../components/account/VerifyBanner';
import { useTwoFactorStatus } from '../api/twoFactor';
import { TwoFactorRequired } from '../components/twoFactor/TwoFactorRequired';
import { Trans, useTranslation } from 'react-i18next';

export default function ProjectLayout() {
  const me = useMe();
  const { projectId, project, projects } = useCurrentProject();
  const config = useAppConfig();
  const [opened, { toggle, close }] = useDisclosure();
  const navigate = useNavigate();
  const signOut = useSignedOut();
  const { pathname } = useLocation();
  const twoFactor = useTwoFactorStatus(!!me.data);
  const { t } = useTranslation(['frame', 'common']);

  if (me.isPending) return <Loading />;
  if (me.error) return <ErrorState error={me.error} />;
  if (!me.data) return <Navigate to="/login" replace />;
  if (projects.isPending) return <Loading label={t('common:loadingProjects')} />;
  if (projects.error) return <ErrorState error={projects.error} />;
  if (!project) return <ErrorState title={t('projectNotFound')} error={new Error(t('projectNotFoundBody'))} />;

  const section = (path: string) => `/p/${projectId}/${path}`;
  // The project's owners require 2FA and this member has none: every project route would answer 403 TWO_FACTOR_REQUIRED.
  const blocked = !!project.requireTwoFactor && twoFactor.data?.enabled === false;
  return (
    <AppShell header={{ height: 60 }} navbar={{ width: 230, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={t('toggleNavigation')} />
            <Anchor component={Link} to={`/p/${projectId}`} fw={700} c="inherit" underline="never">
              {t('brand')}
            </Anchor>
            <Select
              aria-label={t('project')}
              placeholder={t('project')}
              data={projects.data.map((p) => ({ value: p.id, label: p.name }))}
              renderOption={({ option }) => {
                const addedBy = projects.data.find((p) => p.id === option.value)?.addedBy;
                return (
                  <div>
                    <Text size="sm">{option.label}</Text>
                    {addedBy ? (
                      <Text size="xs" c="dimmed">
                        {t('addedBy', { name: addedBy })}
                      </Text>
                    ) : null}
                  </div>
                );
              }}
              value={projectId}
              allowDeselect={false}
              onChange={(id) => id && navigate(`/p/${id}`)}
              w={{ base: 140, sm: 220 }}
            />
            <Button component={Link} to="/new-project" variant="subtle" size="xs" visibleFrom="xs">
              {t('newProject')}
            </Button>
          </Group>
          <Group wrap="nowrap" gap="xs">
            <ColorSchemeSwitch />
            <Text size="sm" c="dimmed" visibleFrom="md">
              {me.data.name || me.data.email}
            </Text>
            <Button component={Link} to="/account" variant="subtle" size="xs">
              {t('account')}
            </Button>
            <Button
              variant="default"
              size="xs"
              onClick={async () => {
                await signOut();
                void navigate('/login', { replace: true });
              }}
            >
              {t('logOut')}
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label={t('project')}>
        {/* Scrolls when the sections outgrow a short window, so the last ones stay reachable. */}
        <AppShell.Section grow component={ScrollArea}>
          <NavLink component={RouterNavLink} to={`/p/${projectId}`} end label={t('title.setup')} onClick={close} active={pathname === `/p/${projectId}`} />
          {SECTIONS.filter((s) => !s.roles || (project.role && s.roles.includes(project.role))).map((s) => (
            <NavLink
              key={s.path}
              component={RouterNavLink}
              to={section(s.path)}
              label={t(`title.${s.title}`)}
              onClick={close}
              active={pathname.startsWith(section(s.path))}
            />
          ))}
        </AppShell.Section>
      </AppShell.Navbar>
      <AppShell.Main id={MAIN_ID} tabIndex={-1} style={{ outline: 'none' }}>
        <VerifyBanner />
        {config.data?.email.localInbox ? (
          <Alert color="yellow" mb="md" title={t('devInboxTitle')}>
            {config.data.email.inboxUrl ? (
              <Trans
                t={t}
                i18nKey="devInboxBodyAt"
                values={{ url: config.data.email.inboxUrl }}
                components={{ anchor: <Anchor href={config.data.email.inboxUrl} target="_blank" rel="noreferrer" /> }}
              />
            ) : (
              t('devInboxBody')
            )}
          </Alert>
        ) : null}
        {project.disabled ? (
          <Alert color="red" mb="md" title={t('disabledTitle')}>
            {t('disabledBody')}
          </Alert>
        ) : null}
        <Title order={2} size="h6" c="dimmed" mb={4}>
          {project.name}
        </Title>
        {blocked ? <TwoFactorRequired projectName={project.name} /> : <Outlet />}
      </AppShell.Main>
    </AppShell>
  );
}
