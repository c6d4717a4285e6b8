import { z } from 'zod';
import { SettingsPatch } from './settings';

export const ProjectCreate = z.object({ name: z.string().trim().min(1).max(100) });
export const ProjectUpdate = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    settings: SettingsPatch.omit({ doubleOptIn: true }).optional().describe('the sending policy (double opt-in is set with PATCH /settings)'),
  })
  .refine((v) => Object.keys(v).length > 0, { message: 'Nothing to update' });

export const ProjectOut = z.object({
  id: z.string(),
  name: z.string(),
  publicKey: z.string(),
  secretKey: z.string(),
  disabled: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
