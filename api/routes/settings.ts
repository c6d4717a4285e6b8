import { route } from '../route';
import { audited, changedKeys, nothingChanged, requestAuditor } from '../../services/audit';
import { notFound } from '../errors';
import { SettingsOut, SettingsPatch } from '../schemas/settings';
import { sendingPolicy, updateSendingPolicy } from '../../db/sendingPolicy';
import { trackingSettings, updateTrackingSettings } from '../../db/tracking';
import { doubleOptInSettings, setDoubleOptInSettings, DoubleOptInSettings } from '../../db/doubleOptIn';
import { findTemplate } from '../../db/templates';
import { retentionSettings, updateRetentionSettings } from '../../db/retention';
import { assertVerifiedSender } from '../../services/senderCheck';
import { senderCheckWaived } from '../../lib/config';
import { validationError } from '../errors';
import type { AppContext } from '../context';

const presentDoubleOptIn = (s: DoubleOptInSettings | null) =>
  s && { enabled: s.enabled, from: s.from, fromName: s.fromName ?? null, templateId: s.templateId ?? null, expiryHours: s.expiryHours };

async function settingsOf(ctx: AppContext, projectId: string) {
  const policy = (await sendingPolicy(ctx.deps.knex, projectId)) ?? notFoundProject();
  const tracking = (await trackingSettings(ctx.deps.knex, projectId)) ?? notFoundProject();
  const retention = (await retentionSettings(ctx.deps.knex, projectId)) ?? notFoundProject();
  return { ...policy, tracking, doubleOptIn: presentDoubleOptIn(await doubleOptInSettings(ctx.deps.knex, projectId)), retention };
}

export default [
  route({
    method: 'get',
    path: '/settings',
    auth: 'secret',
    tag: 'settings',
    summary: "The project's sending policy (default time zone, quiet hours, frequency cap, send rate), open and click tracking, double opt-in and retention",
    responses: { 200: { description: 'sending policy', schema: SettingsOut } },
    async handler(ctx, { project }) {
      return await settingsOf(ctx, project.id);
    },
  }),
  route({
    method: 'patch',
    path: '/settings',
    audit: 'settings.update',
    role: 'settings.update',
    auth: 'secret',
    tag: 'settings',
    summary: 'Change the sending policy; only the keys sent change, null turns quiet hours or the cap off and puts the send rate back to the default',
    body: SettingsPatch,
    responses: { 200: { description: 'sending policy', schema: SettingsOut } },
    async handler(ctx, { body, project }) {
      const { doubleOptIn, tracking, retention, ...policy } = body;
      const projectId = project.id;
      if (doubleOptIn) {
        await assertVerifiedSender(ctx.deps.knex, projectId, doubleOptIn.from, senderCheckWaived(ctx.deps.config));
        if (doubleOptIn.templateId && !(await findTemplate(ctx.deps.knex, projectId, doubleOptIn.templateId))) {
          throw validationError([{ field: 'doubleOptIn.templateId', code: 'custom', message: 'template not found in this project' }]);
        }
      }
      // One transaction: the parts of a patch and its audit entry commit together or not at all.
      await audited(
        ctx.deps.knex,
        requestAuditor(ctx),
        async (trx) => {
          if ((await updateSendingPolicy(trx, projectId, policy)) === undefined) notFoundProject();
          if (tracking && (await updateTrackingSettings(trx, projectId, tracking)) === undefined) notFoundProject();
          if (doubleOptIn !== undefined) await setDoubleOptInSettings(trx, projectId, doubleOptIn);
          if (retention) await updateRetentionSettings(trx, projectId, retention);
        },
        () =>
          changedKeys(body).length > 0 && {
            projectId,
            action: 'settings.update',
            target: { type: 'settings', id: null },
            details: { changed: changedKeys(body) },
          },
      );
      if (!changedKeys(body).length) nothingChanged('an empty patch');
      return await settingsOf(ctx, project.id);
    },
  }),
];

function notFoundProject(): never {
  throw notFound('Project');
}
