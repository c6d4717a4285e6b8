import { z } from 'zod';
import { SettingsOut, SettingsPatch } from './settings';
import { ROLES } from '../../db/projects';

export const ProjectCreate = z.object({ name: z.string().trim().min(1).max(100) });
export const ProjectUpdate = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    requireTwoFactor: z
      .boolean()
      .optional()
      .describe('members must have two-factor authentication to open the project in the dashboard (owner only; the owner needs 2FA first)'),
    settings: SettingsPatch.omit({ doubleOptIn: true }).optional().describe('the sending policy (double opt-in is set with PATCH /settings)'),
  })
  .refine((v) => Object.keys(v).length > 0, { message: 'Nothing to update' });

export const ProjectOut = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string().describe('public name of the project in its campaign archive: /archive/<slug> (from the name at creation, fixed)'),
  publicKey: z.string(),
  secretKey: z.string(),
  disabled: z.boolean(),
  requireTwoFactor: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** PATCH /users/@me/projects/:id: the project and its sending policy (the part of the settings this route changes). */
export const ProjectUpdateOut = ProjectOut.extend({
  settings: SettingsOut.pick({ timezone: true, quietHours: true, frequencyCap: true, sendRatePerSecond: true }),
});

/** GET /users/@me/projects: each project with the user's role and who added them (null: they created it, or joined before this was recorded). */
export const MyProjectsOut = z.array(
  ProjectOut.extend({
    role: z.enum(ROLES),
    addedBy: z.string().nullable().describe('email of the person who added this user to the project (directly or by an accepted invite); null for its creator'),
  }),
);
