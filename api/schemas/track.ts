import { z } from 'zod';
import { Email } from './common';
import { ContactDataInput } from './contacts';

/** Names the service emits itself; callers cannot track them (spec "Events"). */
export function isReservedEventName(name: string): boolean {
  return name.startsWith('email.') || name === 'contact.subscribed' || name === 'contact.unsubscribed' || /^segment\..+\.(entry|exit)$/.test(name);
}

const EventName = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .superRefine((name, ctx) => {
    if (isReservedEventName(name)) {
      ctx.addIssue({ code: 'custom', message: `"${name}" is a reserved event name`, params: { code: 'reserved_event' } });
    }
  });

export const TrackBody = z.object({
  email: Email,
  event: EventName,
  subscribed: z.boolean().optional(),
  data: ContactDataInput.optional(),
});
export type TrackBody = z.infer<typeof TrackBody>;

export const TrackOut = z.object({
  success: z.literal(true),
  data: z.object({ contact: z.string(), event: z.string().uuid(), timestamp: z.string() }),
});
