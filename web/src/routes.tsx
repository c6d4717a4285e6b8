import type { RouteObject } from 'react-router';
import type { ComponentType } from 'react';
import type { Role } from './api/client';

/** Every screen is its own chunk (code-split by route): the first load carries only the shell and the screen it shows. */
const page = (load: () => Promise<{ default: ComponentType }>) => async () => ({ Component: (await load()).default });

/**
 * The roles that manage what can send the project's data elsewhere or change how it sends: webhook
 * endpoints, suppressions, API keys, domains, settings (docs/roles.md). Their buttons are shown to
 * these roles only; the server refuses the others anyway (403, and the attempt is audited).
 */
export const MANAGERS: readonly Role[] = ['OWNER', 'ADMIN'];
export const manages = (role: Role | null | undefined): boolean => !!role && MANAGERS.includes(role);

/** `roles`: shown only to these roles (docs/roles.md); the server checks anyway. */
export const SECTIONS: ReadonlyArray<{ path: string; label: string; roles?: readonly Role[] }> = [
  { path: 'contacts', label: 'Contacts' },
  { path: 'suppressions', label: 'Suppressions' },
  { path: 'templates', label: 'Templates' },
  { path: 'campaigns', label: 'Campaigns' },
  { path: 'analytics', label: 'Analytics' },
  { path: 'segments', label: 'Segments' },
  { path: 'topics', label: 'Topics' },
  { path: 'forms', label: 'Forms' },
  { path: 'workflows', label: 'Workflows' },
  { path: 'activity', label: 'Activity' },
  { path: 'events', label: 'Events' },
  { path: 'domains', label: 'Domains' },
  { path: 'keys', label: 'API keys' },
  { path: 'team', label: 'Team' },
  { path: 'audit', label: 'Audit log', roles: MANAGERS },
  { path: 'settings', label: 'Settings' },
  { path: 'webhooks', label: 'Webhooks' },
];

export const routes: RouteObject[] = [
  { path: '/login', lazy: page(() => import('./pages/Login')) },
  { path: '/signup', lazy: page(() => import('./pages/Signup')) },
  // Account screens; the links of the service's own emails (services/accountEmails.ts, the invite) open the token ones.
  { path: '/forgot-password', lazy: page(() => import('./pages/account/ForgotPassword')) },
  { path: '/reset-password', lazy: page(() => import('./pages/account/ResetPassword')) },
  { path: '/verify-email', lazy: page(() => import('./pages/account/VerifyEmail')) },
  { path: '/confirm-email', lazy: page(() => import('./pages/account/ConfirmEmail')) },
  { path: '/invite', lazy: page(() => import('./pages/account/Invite')) },
  { path: '/account', lazy: page(() => import('./pages/account/Account')) },
  { path: '/', lazy: page(() => import('./pages/Home')) },
  { path: '/new-project', lazy: page(() => import('./pages/NewProject')) },
  { path: '/account/two-factor', lazy: page(() => import('./pages/TwoFactor')) },
  {
    path: '/p/:projectId',
    lazy: page(() => import('./pages/ProjectLayout')),
    children: [
      { index: true, lazy: page(() => import('./pages/Overview')) },
      { path: 'keys', lazy: page(() => import('./pages/ApiKeys')) },
      { path: 'domains', lazy: page(() => import('./pages/Domains')) },
      { path: 'contacts', lazy: page(() => import('./pages/Contacts')) },
      { path: 'contacts/:contactId', lazy: page(() => import('./pages/ContactDetail')) },
      { path: 'suppressions', lazy: page(() => import('./pages/Suppressions')) },
      { path: 'team', lazy: page(() => import('./pages/Team')) },
      { path: 'activity', lazy: page(() => import('./pages/Activity')) },
      { path: 'events', lazy: page(() => import('./pages/Events')) },
      { path: 'webhooks', lazy: page(() => import('./pages/Webhooks')) },
      { path: 'settings', lazy: page(() => import('./pages/Settings')) },
      { path: 'templates', lazy: page(() => import('./pages/Templates')) },
      { path: 'templates/new', lazy: page(() => import('./pages/TemplateEditor')) },
      { path: 'templates/:templateId', lazy: page(() => import('./pages/TemplateEditor')) },
      { path: 'segments', lazy: page(() => import('./pages/Segments')) },
      { path: 'segments/new', lazy: page(() => import('./pages/SegmentEditor')) },
      { path: 'segments/:segmentId', lazy: page(() => import('./pages/SegmentEditor')) },
      { path: 'campaigns', lazy: page(() => import('./pages/Campaigns')) },
      { path: 'campaigns/new', lazy: page(() => import('./pages/CampaignPage')) },
      { path: 'campaigns/:campaignId', lazy: page(() => import('./pages/CampaignPage')) },
      { path: 'analytics', lazy: page(() => import('./pages/Analytics')) },
      { path: 'topics', lazy: page(() => import('./pages/Topics')) },
      { path: 'forms', lazy: page(() => import('./pages/Forms')) },
      { path: 'forms/new', lazy: page(() => import('./pages/FormEditor')) },
      { path: 'forms/:formId', lazy: page(() => import('./pages/FormEditor')) },
      { path: 'audit', lazy: page(() => import('./pages/AuditLog')) },
      { path: 'workflows', lazy: page(() => import('./pages/Workflows')) },
      // The editor's chunk carries @xyflow/react: no other screen pays for it.
      { path: 'workflows/:workflowId', lazy: page(() => import('./pages/WorkflowEditor')) },
      { path: 'workflows/:workflowId/executions', lazy: page(() => import('./pages/WorkflowExecutions')) },
    ],
  },
  { path: '*', lazy: page(() => import('./pages/NotFound')) },
];
