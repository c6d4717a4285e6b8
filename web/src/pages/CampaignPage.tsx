import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { api, forProject, unwrap } from '../api/client';
import { useCurrentProject } from '../api/project';
import { ACTIVE } from '../api/campaigns';
import { ErrorState, Loading } from '../components/States';
import { CampaignEditor } from './CampaignEditor';
import { CampaignDetail } from './CampaignDetail';

/**
 * `/campaigns/new` and `/campaigns/:campaignId`: a DRAFT opens in the composer, any other status shows
 * its progress and report. The campaign is polled while it is active, so progress and status follow the API.
 */
export default function CampaignPage() {
  const { projectId } = useCurrentProject();
  const { campaignId } = useParams();
  const campaign = useQuery({
    queryKey: ['campaign', projectId, campaignId],
    enabled: !!campaignId,
    refetchInterval: (q) => (q.state.data && ACTIVE.includes(q.state.data.status) ? 2000 : false),
    queryFn: () => unwrap(api.GET('/campaigns/{id}', { params: { path: { id: campaignId! } }, headers: forProject(projectId) })),
  });
  if (!campaignId) return <CampaignEditor key="new" projectId={projectId} campaign={null} />;
  if (campaign.isPending) return <Loading />;
  // A failed poll keeps showing the campaign as last read; only a first load that fails is an error page.
  if (campaign.error && !campaign.data) return <ErrorState error={campaign.error} title="Campaign not found" />;
  const c = campaign.data!;
  // The composer keeps its own draft, seeded once per campaign.
  if (c.status === 'DRAFT') return <CampaignEditor key={c.id} projectId={projectId} campaign={c} />;
  return <CampaignDetail projectId={projectId} campaign={c} />;
}
