import { useParams, useSearchParams } from 'react-router';
import { useCampaign } from '../api/hooks/campaigns';
import { useCurrentProject } from '../api/project';
import { ErrorState, Loading } from '../components/States';
import { CampaignEditor } from './CampaignEditor';
import { CampaignDetail } from './CampaignDetail';
import { RssCampaignEditor } from '../components/campaigns/RssCampaignEditor';
import { RssCampaignDetail } from '../components/campaigns/RssCampaignDetail';
import { useTranslation } from 'react-i18next';

/**
 * `/campaigns/new` (`?kind=rss`: an RSS campaign) and `/campaigns/:campaignId`: a DRAFT opens in the
 * composer, any other status shows its progress and report; an RSS campaign shows its runs in any status. The campaign is polled while it is active, so progress and status follow the API.
 */
export default function CampaignPage() {
  const { t } = useTranslation('campaigns');
  const { projectId } = useCurrentProject();
  const { campaignId } = useParams();
  const [search] = useSearchParams();
  const campaign = useCampaign(projectId, campaignId);
  if (!campaignId)
    return search.get('kind') === 'rss' ? (
      <RssCampaignEditor key="new-rss" projectId={projectId} />
    ) : (
      <CampaignEditor key="new" projectId={projectId} campaign={null} />
    );
  if (campaign.isPending) return <Loading />;
  // A failed poll keeps showing the campaign as last read; only a first load that fails is an error page.
  if (campaign.error && !campaign.data) return <ErrorState error={campaign.error} title={t('notFound')} />;
  const c = campaign.data!;
  if (c.kind === 'RSS') return <RssCampaignDetail projectId={projectId} campaign={c} />;
  // The composer keeps its own draft, seeded once per campaign.
  if (c.status === 'DRAFT') return <CampaignEditor key={c.id} projectId={projectId} campaign={c} />;
  return <CampaignDetail projectId={projectId} campaign={c} />;
}
