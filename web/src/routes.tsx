import type { RouteObject } from 'react-router';
import type { ComponentType } from 'react';
import type { Role } from './api/client';
import { loadAreas } from './i18n';
import { AppFrame, type ScreenHandle, type ScreenTitle } from './components/AppFrame';

/** Every screen is its own chunk (code-split by route): the first load carries only the shell and the screen it shows. */
/** A screen's module, with the project screens' English words (i18n loadAreas) in before it renders. */
const page = (load: () => Promise<{ default: ComponentType }>) => async () => {
  const [module] = await Promise.all([load(), loadAreas()]);
  return { Component: module.default };
};

/**
 * The roles that manage what can send the project's data elsewhere or change how it sends: webhook
 * endpoints, suppressions, API keys, domains, settings (docs/roles.md). Their buttons are shown to
 * these roles only; the server refuses the others anyway (403, and the attempt is audited).
 */
export const MANAGERS: readonly Role[] = ['OWNER', 'ADMIN'];
export const manages = (role: Role | null | undefined): boolean => !!role && MANAGERS.includes(role);

/** `roles`: shown only to these roles (docs/roles.md); the server checks anyway. */
/** `title`: the screen's name in the frame catalogue (web/src/i18n/en/frame.ts), also the navigation's label. */
export const SECTIONS: ReadonlyArray<{ path: string; title: ScreenTitle; roles?: readonly Role[] }> = [
  { path: 'contacts', title: 'contacts' },
  { path: 'suppressions', title: 'suppressions' },
  { path: 'inbound', title: 'inbound' },
  { path: 'templates', title: 'templates' },
  { path: 'campaigns', title: 'campaigns' },
  { path: 'analytics', title: 'analytics' },
  { path: 'segments', title: 'segments' },
  { path: 'topics', title: 'topics' },
  { path: 'forms', title: 'forms' },
  { path: 'workflows', title: 'workflows' },
  { path: 'activity', title: 'activity' },
  { path: 'events', title: 'events' },
  { path: 'domains', title: 'domains' },
  { path: 'keys', title: 'keys' },
  { path: 'team', title: 'team' },
  { path: 'audit', title: 'audit', roles: MANAGERS },
  { path: 'settings', title: 'settings' },
  { path: 'webhooks', title: 'webhooks' },
];

/** A route's handle naming its screen: the key is checked against the catalogue (a handle is untyped otherwise). */
const screen = (title: ScreenTitle): ScreenHandle => ({ title });

/**
 * Every screen sits in AppFrame (the skip link, the <main> landmark, the tab's title); `handle.title`
 * names the screen for the title (components/AppFrame.tsx). A contact's page titles itself.
 */
export const routes: RouteObject[] = [
  {
    Component: AppFrame,
    children: [
      { path: '/login', handle: screen('login'), lazy: page(() => import('./pages/Login')) },
      { path: '/signup', handle: screen('signup'), lazy: page(() => import('./pages/Signup')) },
      // Account screens; the links of the service's own emails (services/accountEmails.ts, the invite) open the token ones.
      { path: '/forgot-password', handle: screen('forgotPassword'), lazy: page(() => import('./pages/account/ForgotPassword')) },
      { path: '/reset-password', handle: screen('resetPassword'), lazy: page(() => import('./pages/account/ResetPassword')) },
      { path: '/verify-email', handle: screen('verifyEmail'), lazy: page(() => import('./pages/account/VerifyEmail')) },
      { path: '/confirm-email', handle: screen('confirmEmail'), lazy: page(() => import('./pages/account/ConfirmEmail')) },
      { path: '/invite', handle: screen('invitation'), lazy: page(() => import('./pages/account/Invite')) },
      { path: '/account', handle: screen('account'), lazy: page(() => import('./pages/account/Account')) },
      { path: '/', handle: screen('home'), lazy: page(() => import('./pages/Home')) },
      { path: '/new-project', handle: screen('newProject'), lazy: page(() => import('./pages/NewProject')) },
      { path: '/account/two-factor', handle: screen('twoFactor'), lazy: page(() => import('./pages/TwoFactor')) },
      {
        path: '/p/:projectId',
        handle: { shell: true } satisfies ScreenHandle,
        lazy: page(() => import('./pages/ProjectLayout')),
        children: [
          { index: true, handle: screen('setup'), lazy: page(() => import('./pages/Overview')) },
          { path: 'keys', handle: screen('keys'), lazy: page(() => import('./pages/ApiKeys')) },
          { path: 'domains', handle: screen('domains'), lazy: page(() => import('./pages/Domains')) },
          { path: 'contacts', handle: screen('contacts'), lazy: page(() => import('./pages/Contacts')) },
          { path: 'contacts/:contactId', lazy: page(() => import('./pages/ContactDetail')) },
          { path: 'suppressions', handle: screen('suppressions'), lazy: page(() => import('./pages/Suppressions')) },
          { path: 'inbound', handle: screen('inbound'), lazy: page(() => import('./pages/Inbound')) },
          { path: 'team', handle: screen('team'), lazy: page(() => import('./pages/Team')) },
          { path: 'activity', handle: screen('activity'), lazy: page(() => import('./pages/Activity')) },
          { path: 'events', handle: screen('events'), lazy: page(() => import('./pages/Events')) },
          { path: 'webhooks', handle: screen('webhooks'), lazy: page(() => import('./pages/Webhooks')) },
          { path: 'settings', handle: screen('settings'), lazy: page(() => import('./pages/Settings')) },
          { path: 'templates', handle: screen('templates'), lazy: page(() => import('./pages/Templates')) },
          { path: 'templates/new', handle: screen('newTemplate'), lazy: page(() => import('./pages/TemplateEditor')) },
          { path: 'templates/:templateId', handle: screen('template'), lazy: page(() => import('./pages/TemplateEditor')) },
          { path: 'segments', handle: screen('segments'), lazy: page(() => import('./pages/Segments')) },
          { path: 'segments/new', handle: screen('newSegment'), lazy: page(() => import('./pages/SegmentEditor')) },
          { path: 'segments/:segmentId', handle: screen('segment'), lazy: page(() => import('./pages/SegmentEditor')) },
          { path: 'campaigns', handle: screen('campaigns'), lazy: page(() => import('./pages/Campaigns')) },
          { path: 'campaigns/new', handle: screen('newCampaign'), lazy: page(() => import('./pages/CampaignPage')) },
          { path: 'campaigns/:campaignId', handle: screen('campaign'), lazy: page(() => import('./pages/CampaignPage')) },
          { path: 'analytics', handle: screen('analytics'), lazy: page(() => import('./pages/Analytics')) },
          { path: 'topics', handle: screen('topics'), lazy: page(() => import('./pages/Topics')) },
          { path: 'forms', handle: screen('forms'), lazy: page(() => import('./pages/Forms')) },
          { path: 'forms/new', handle: screen('newForm'), lazy: page(() => import('./pages/FormEditor')) },
          { path: 'forms/:formId', handle: screen('form'), lazy: page(() => import('./pages/FormEditor')) },
          { path: 'audit', handle: screen('audit'), lazy: page(() => import('./pages/AuditLog')) },
          { path: 'workflows', handle: screen('workflows'), lazy: page(() => import('./pages/Workflows')) },
          // The editor's chunk carries @xyflow/react: no other screen pays for it.
          { path: 'workflows/:workflowId', handle: screen('workflow'), lazy: page(() => import('./pages/WorkflowEditor')) },
          { path: 'workflows/:workflowId/executions', handle: screen('workflowRuns'), lazy: page(() => import('./pages/WorkflowExecutions')) },
        ],
      },
      { path: '*', handle: screen('notFound'), lazy: page(() => import('./pages/NotFound')) },
    ],
  },
];
