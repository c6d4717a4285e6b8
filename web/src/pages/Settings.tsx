import { Stack, Title } from '@mantine/core';
import { useSettings } from '../api/hooks/settings';
import { useAppConfig } from '../api/session';
import { useCurrentProject } from '../api/project';
import { manages } from '../routes';
import { ErrorState, Loading } from '../components/States';
import { RequireTwoFactorSwitch } from '../components/twoFactor/RequireTwoFactorSwitch';
import { BrandSettings } from '../components/emailEditor/BrandSettings';
import { ProjectName, Sending, RetentionSettings } from '../components/settings/ProjectSections';
import { Billing } from '../components/settings/BillingSection';
import { DangerZone } from '../components/settings/DangerZone';
import { useTranslation } from 'react-i18next';

export default function Settings() {
  const { t } = useTranslation('settings');
  const { projectId, project } = useCurrentProject();
  const config = useAppConfig();
  const policy = useSettings(projectId);
  if (!project) return <Loading />;
  const may = manages(project.role);
  return (
    <Stack>
      <Title order={1} size="h2">
        {t('page.heading')}
      </Title>
      <ProjectName key={project.id} project={project} may={may} />
      {policy.isPending ? <Loading /> : null}
      {policy.error ? <ErrorState error={policy.error} /> : null}
      {policy.data ? <Sending projectId={projectId} policy={policy.data} may={may} /> : null}
      {policy.data ? <RetentionSettings projectId={projectId} retention={policy.data.retention} may={may} /> : null}
      <BrandSettings projectId={projectId} may={may} />
      {config.data?.billing?.enabled ? <Billing projectId={projectId} may={may} /> : null}
      {project.role === 'OWNER' ? <RequireTwoFactorSwitch project={project} /> : null}
      {project.role === 'OWNER' ? <DangerZone project={project} /> : null}
    </Stack>
  );
}
