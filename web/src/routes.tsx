import type { RouteObject } from 'react-router';
import type { ComponentType } from 'react';
import type { Role } from './api/client';
import { AppFrame } from './components/AppFrame';

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
  { path: 'inbound', label: 'Inbound' },
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

/**
 * Every screen sits in AppFrame (the skip link, the <main> landmark, the tab's title); `handle.title`
 * names the screen for the title (components/AppFrame.tsx). A contact's page titles itself.
 */
export const routes: RouteObject[] = [
  {
    Component: AppFrame,
    children: [
      { path: '/login', handle: { title: 'Log in' }, lazy: page(() => import('./pages/Login')) },
      { path: '/signup', handle: { title: 'Sign up' }, lazy: page(() => import('./pages/Signup')) },
      // Account screens; the links of the service's own emails (services/accountEmails.ts, the invite) open the token ones.
      { path: '/forgot-password', handle: { title: 'Forgot password' }, lazy: page(() => import('./pages/account/ForgotPassword')) },
      { path: '/reset-password', handle: { title: 'Reset password' }, lazy: page(() => import('./pages/account/ResetPassword')) },
      { path: '/verify-email', handle: { title: 'Verify email' }, lazy: page(() => import('./pages/account/VerifyEmail')) },
      { path: '/confirm-email', handle: { title: 'Confirm email' }, lazy: page(() => import('./pages/account/ConfirmEmail')) },
      { path: '/invite', handle: { title: 'Invitation' }, lazy: page(() => import('./pages/account/Invite')) },
      { path: '/account', handle: { title: 'Account' }, lazy: page(() => import('./pages/account/Account')) },
      { path: '/', handle: { title: 'svc-mail' }, lazy: page(() => import('./pages/Home')) },
      { path: '/new-project', handle: { title: 'New project' }, lazy: page(() => import('./pages/NewProject')) },
      { path: '/account/two-factor', handle: { title: 'Two-factor authentication' }, lazy: page(() => import('./pages/TwoFactor')) },
      {
        path: '/p/:projectId',
        handle: { shell: true },
        lazy: page(() => import('./pages/ProjectLayout')),
        children: [
          { index: true, handle: { title: 'Setup' }, lazy: page(() => import('./pages/Overview')) },
          { path: 'keys', handle: { title: 'API keys' }, lazy: page(() => import('./pages/ApiKeys')) },
          { path: 'domains', handle: { title: 'Domains' }, lazy: page(() => import('./pages/Domains')) },
          { path: 'contacts', handle: { title: 'Contacts' }, lazy: page(() => import('./pages/Contacts')) },
          { path: 'contacts/:contactId', lazy: page(() => import('./pages/ContactDetail')) },
          { path: 'suppressions', handle: { title: 'Suppressions' }, lazy: page(() => import('./pages/Suppressions')) },
          { path: 'inbound', handle: { title: 'Inbound' }, lazy: page(() => import('./pages/Inbound')) },
          { path: 'team', handle: { title: 'Team' }, lazy: page(() => import('./pages/Team')) },
          { path: 'activity', handle: { title: 'Activity' }, lazy: page(() => import('./pages/Activity')) },
          { path: 'events', handle: { title: 'Events' }, lazy: page(() => import('./pages/Events')) },
          { path: 'webhooks', handle: { title: 'Webhooks' }, lazy: page(() => import('./pages/Webhooks')) },
          { path: 'settings', handle: { title: 'Settings' }, lazy: page(() => import('./pages/Settings')) },
          { path: 'templates', handle: { title: 'Templates' }, lazy: page(() => import('./pages/Templates')) },
          { path: 'templates/new', handle: { title: 'New template' }, lazy: page(() => import('./pages/TemplateEditor')) },
          { path: 'templates/:templateId', handle: { title: 'Template' }, lazy: page(() => import('./pages/TemplateEditor')) },
          { path: 'segments', handle: { title: 'Segments' }, lazy: page(() => import('./pages/Segments')) },
          { path: 'segments/new', handle: { title: 'New segment' }, lazy: page(() => import('./pages/SegmentEditor')) },
          { path: 'segments/:segmentId', handle: { title: 'Segment' }, lazy: page(() => import('./pages/SegmentEditor')) },
          { path: 'campaigns', handle: { title: 'Campaigns' }, lazy: page(() => import('./pages/Campaigns')) },
          { path: 'campaigns/new', handle: { title: 'New campaign' }, lazy: page(() => import('./pages/CampaignPage')) },
          { path: 'campaigns/:campaignId', handle: { title: 'Campaign' }, lazy: page(() => import('./pages/CampaignPage')) },
          { path: 'analytics', handle: { title: 'Analytics' }, lazy: page(() => import('./pages/Analytics')) },
          { path: 'topics', handle: { title: 'Topics' }, lazy: page(() => import('./pages/Topics')) },
          { path: 'forms', handle: { title: 'Forms' }, lazy: page(() => import('./pages/Forms')) },
          { path: 'forms/new', handle: { title: 'New form' }, lazy: page(() => import('./pages/FormEditor')) },
          { path: 'forms/:formId', handle: { title: 'Form' }, lazy: page(() => import('./pages/FormEditor')) },
          { path: 'audit', handle: { title: 'Audit log' }, lazy: page(() => import('./pages/AuditLog')) },
          { path: 'workflows', handle: { title: 'Workflows' }, lazy: page(() => import('./pages/Workflows')) },
          // The editor's chunk carries @xyflow/react: no other screen pays for it.
          { path: 'workflows/:workflowId', handle: { title: 'Workflow' }, lazy: page(() => import('./pages/WorkflowEditor')) },
          { path: 'workflows/:workflowId/executions', handle: { title: 'Workflow runs' }, lazy: page(() => import('./pages/WorkflowExecutions')) },
        ],
      },
      { path: '*', handle: { title: 'Page not found' }, lazy: page(() => import('./pages/NotFound')) },
    ],
  },
];
