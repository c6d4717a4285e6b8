import type { Knex } from 'knex';
import * as init from './001_init';
import * as transactional from './002_transactional';
import * as eventRouting from './003_event_routing';
import * as filterIndexes from './004_filter_indexes';
import * as jobs from './005_jobs';
import * as workflows from './006_workflows';
import * as segments from './007_segments';
import * as campaigns from './008_campaigns';
import * as feedIndexes from './009_feed_indexes';
import * as accounts from './010_accounts';
import * as webhookEndpoints from './011_webhook_endpoints';
import * as uploads from './012_uploads';
import * as campaignPaused from './013_campaign_paused';
import * as deliveryControls from './014_delivery_controls';
import * as dkimKeys from './015_dkim_keys';
import * as sendThrottle from './016_send_throttle';
import * as campaignAb from './018_campaign_ab';
import * as deliveryBatches from './019_delivery_batches';
import * as inviteTokens from './020_invite_tokens';
import * as sessionVersions from './021_session_versions';
import * as rateLimitPublic from './024_rate_limit_public';
import * as emailStory from './027_email_story';
import * as suppressions from './028_suppressions';
import * as plainText from './029_plain_text';
import * as tracking from './030_tracking';
import * as topics from './034_topics';
import * as consentRecords from './035_consent_records';
import * as doubleOptIn from './036_double_opt_in';
import * as inboundMessages from './032_inbound_messages';
import * as inboundDomainLookup from './033_inbound_domain_lookup';
import * as contactErasures from './037_contact_erasures';
import * as contactExports from './038_contact_exports';
import * as auditLog from './039_audit_log';
import * as retention from './040_retention';
import * as userSessions from './041_user_sessions';
import * as twoFactor from './042_two_factor';
import * as userIdentities from './043_user_identities';
import * as postmasterAndAddedBy from './045_postmaster_and_added_by';
import * as trackingDomains from './046_tracking_domains';
import * as apiKeys from './047_api_keys';
import * as scheduledSends from './049_scheduled_sends';
import * as forms from './050_forms';
import * as growth from './051_growth';
import * as templateVersions from './052_template_versions';
import * as brands from './053_brands';
import * as campaignDocuments from './054_campaign_documents';
import * as workflowStepCounts from './055_workflow_step_counts';
import * as testExecutions from './056_test_executions';
import * as workflowVersions from './058_workflow_versions';
import * as eventRollups from './059_event_rollups';
import * as eventRollupsForget from './060_event_rollups_forget';
import * as eventKeys from './062_event_keys';
import * as eventsPartitioned from './063_events_partitioned';
import * as contactSearch from './065_contact_search';
import * as contactViews from './067_contact_views';
import * as segmentMembershipChanges from './069_segment_membership_changes';
import * as timelineIndexes from './070_timeline_indexes';
import * as userLocale from './071_user_locale';
import * as rollupNameCount from './072_rollup_name_count';
import * as consentProjectFk from './073_consent_project_fk';
import * as membershipHistoryProjectFk from './074_membership_history_project_fk';
import * as rollupDeleteGoneProject from './075_rollup_delete_gone_project';
import * as windowCountIndexes from './077_window_count_indexes';
import * as computeHistoryFromEvents from './078_compute_history_from_events';
import * as segmentComputeLanes from './079_segment_compute_lanes';

/**
 * Migrations are listed here rather than discovered on disk, so the same list works under tsx,
 * jest and a compiled build alike. Append new ones; never reorder or edit a shipped one.
 */
const migrations: Array<[string, { up(k: Knex): Promise<void>; down(k: Knex): Promise<void> }]> = [
  ['001_init', init],
  ['002_transactional', transactional],
  ['003_event_routing', eventRouting],
  ['004_filter_indexes', filterIndexes],
  ['005_jobs', jobs],
  ['006_workflows', workflows],
  ['007_segments', segments],
  ['008_campaigns', campaigns],
  ['009_feed_indexes', feedIndexes],
  ['010_accounts', accounts],
  ['011_webhook_endpoints', webhookEndpoints],
  ['012_uploads', uploads],
  ['013_campaign_paused', campaignPaused],
  ['014_delivery_controls', deliveryControls],
  ['015_dkim_keys', dkimKeys],
  ['016_send_throttle', sendThrottle],
  ['018_campaign_ab', campaignAb],
  ['019_delivery_batches', deliveryBatches],
  ['020_invite_tokens', inviteTokens],
  ['021_session_versions', sessionVersions],
  ['024_rate_limit_public', rateLimitPublic],
  ['027_email_story', emailStory],
  ['028_suppressions', suppressions],
  ['029_plain_text', plainText],
  ['030_tracking', tracking],
  ['032_inbound_messages', inboundMessages],
  ['033_inbound_domain_lookup', inboundDomainLookup],
  ['034_topics', topics],
  ['035_consent_records', consentRecords],
  ['036_double_opt_in', doubleOptIn],
  ['037_contact_erasures', contactErasures],
  ['038_contact_exports', contactExports],
  ['039_audit_log', auditLog],
  ['040_retention', retention],
  ['041_user_sessions', userSessions],
  ['042_two_factor', twoFactor],
  ['043_user_identities', userIdentities],
  ['045_postmaster_and_added_by', postmasterAndAddedBy],
  ['046_tracking_domains', trackingDomains],
  ['047_api_keys', apiKeys],
  ['049_scheduled_sends', scheduledSends],
  ['050_forms', forms],
  ['051_growth', growth],
  ['052_template_versions', templateVersions],
  ['053_brands', brands],
  ['054_campaign_documents', campaignDocuments],
  ['055_workflow_step_counts', workflowStepCounts],
  ['056_test_executions', testExecutions],
  ['058_workflow_versions', workflowVersions],
  ['059_event_rollups', eventRollups],
  ['060_event_rollups_forget', eventRollupsForget],
  ['062_event_keys', eventKeys],
  ['063_events_partitioned', eventsPartitioned],
  ['065_contact_search', contactSearch],
  ['067_contact_views', contactViews],
  ['069_segment_membership_changes', segmentMembershipChanges],
  ['070_timeline_indexes', timelineIndexes],
  ['071_user_locale', userLocale],
  ['072_rollup_name_count', rollupNameCount],
  ['073_consent_project_fk', consentProjectFk],
  ['074_membership_history_project_fk', membershipHistoryProjectFk],
  ['075_rollup_delete_gone_project', rollupDeleteGoneProject],
  ['077_window_count_indexes', windowCountIndexes],
  ['078_compute_history_from_events', computeHistoryFromEvents],
  ['079_segment_compute_lanes', segmentComputeLanes],
];

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => migrations.map(([name]) => name),
  getMigrationName: (name) => name,
  getMigration: async (name) => {
    const found = migrations.find(([n]) => n === name);
    if (!found) throw new Error(`unknown migration ${name}`);
    return found[1];
  },
};
