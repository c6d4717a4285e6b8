import { z } from 'zod';
import { SettingsPatch } from './settings';

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
  publicKey: z.string(),
  secretKey: z.string(),
  disabled: z.boolean(),
  requireTwoFactor: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
