import { Text } from '@mantine/core';
import { useTemplateUsage } from '../../api/hooks/templates';
import { useTranslation } from 'react-i18next';

/** The workflow steps that send the template (they keep it from being deleted), under its name; nothing while loading or on error. */
export function TemplateUsage({ projectId, templateId }: { projectId: string; templateId: string }) {
  const { t } = useTranslation('editor');
  const usage = useTemplateUsage(projectId, templateId);
  if (usage.isPending || usage.error) return null;
  const { workflows } = usage.data;
  return (
    <Text size="sm" c="dimmed" data-testid="template-usage">
      {workflows.length ? t('templateEditor.sentBy', { count: workflows.length, names: workflows.map((w) => w.name).join(', ') }) : t('templateEditor.unused')}
    </Text>
  );
}
