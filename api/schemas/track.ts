import { z } from 'zod';
import { Email } from './common';
import { ContactDataInput } from './contacts';
import { TopicStatesInput } from './topics';
import { eventNameProblem, isReservedEventName } from '../../lib/reservedEvents';

/** Names the service emits itself; callers cannot track them (lib/reservedEvents.ts). */
export { isReservedEventName };

const EventName = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .superRefine((name, ctx) => {
    const problem = eventNameProblem(name, 'track');
    if (problem) ctx.addIssue({ code: 'custom', message: problem.message, params: { code: problem.code } });
  });

export const TrackBody = z.object({
  email: Email,
  event: EventName,
  subscribed: z.boolean().optional(),
  data: ContactDataInput.optional(),
  topics: TopicStatesInput.optional(),
  doubleOptIn: z
    .boolean()
    .optional()
    .describe(
      "true: a subscription waits for the person to confirm it from an emailed link (needs the project's doubleOptIn settings); false: not even when the project asks for it by default",
    ),
});
export type TrackBody = z.infer<typeof TrackBody>;

export const TrackOut = z.object({
  success: z.literal(true),
  data: z.object({ contact: z.string(), event: z.string().uuid(), timestamp: z.string() }),
});
