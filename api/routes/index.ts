import type { RouteDef } from '../route';
import health from './health';
import config from './config';
import auth from './auth';
import twoFactor from './twoFactor';
import users from './users';
import account from './account';
import sso from './sso';
import profile from './profile';
import projects from './projects';
import invites from './invites';
import uploads from './uploads';
import billingWebhook from './billingWebhook';
import contactJobs from './contactJobs';
import contactFields from './contactFields';
import contacts from './contacts';
import contactTimeline from './contactTimeline';
import contactPrivacy from './contactPrivacy';
import contactViews from './contactViews';
import contactSearch from './contactSearch';
import domains from './domains';
import track from './track';
import send from './send';
import sendBatch from './sendBatch';
import docs from './docs';
import verify from './verify';
import templates from './templates';
import brand from './brand';
import unsubscribe from './unsubscribe';
import campaigns from './campaigns';
import campaignRecipients from './campaignRecipients';
import webhooks from './webhooks';
import sesWebhook from './sesWebhook';
import webhookEndpoints from './webhookEndpoints';
import segments from './segments';
import workflows from './workflows';
import workflowVersions from './workflowVersions';
import events from './events';
import activity from './activity';
import analytics from './analytics';
import accountPages from './accountPages';
import leaveProjectPage from './leaveProjectPage';
import settings from './settings';
import emails from './emails';
import suppressions from './suppressions';
import tracking from './tracking';
import trackingDomain from './trackingDomain';
import topics from './topics';
import forms from './forms';
import formPages from './formPages';
import inbound from './inbound';
import viewInBrowser from './viewInBrowser';
import archive from './archive';
import apiKeys from './apiKeys';

/** Every route of the API. New resource files are added here; app, OpenAPI and the fuzzer follow. */
export const allRoutes: RouteDef[] = [
  ...health,
  ...config,
  ...docs,
  ...auth,
  ...twoFactor,
  ...account,
  ...sso,
  ...profile,
  ...users,
  ...projects,
  ...apiKeys,
  ...invites,
  ...settings,
  ...uploads,
  ...billingWebhook,
  ...send,
  ...sendBatch,
  ...track,
  ...contactJobs,
  ...contactFields,
  ...contactPrivacy,
  ...contactViews,
  ...contactSearch,
  ...contacts,
  ...contactTimeline,
  ...topics,
  ...forms,
  ...formPages,
  ...domains,
  ...verify,
  ...templates,
  ...brand,
  ...unsubscribe,
  ...viewInBrowser,
  ...archive,
  ...tracking,
  ...trackingDomain,
  ...accountPages,
  ...leaveProjectPage,
  ...segments,
  ...workflows,
  ...workflowVersions,
  ...campaigns,
  ...campaignRecipients,
  ...webhooks,
  ...sesWebhook,
  ...webhookEndpoints,
  ...suppressions,
  ...events,
  ...emails,
  ...inbound,
  ...activity,
  ...analytics,
];
