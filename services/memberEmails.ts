import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { Role } from '../db/projects';
import { signLeaveToken } from '../lib/leaveLinks';
import { sendSystemEmail } from './systemEmail';
import type { TemporalGateway } from './temporal';

// Fixed template source: the project name and the adder go in as variables, so a name like
// `{{ 7 | times: 6 }}` is shown as written, never evaluated (as the invitation email does).
export const ADDED_SUBJECT = 'You were added to {{ project }}';
const ADDED_EMAIL = `<p>{{ adder }} added you to the project “{{ project }}” as {{ role }}. It is in your dashboard now: <a href="{{ appUrl }}">{{ appUrl }}</a></p>
<p>If you do not want to be part of it, leave it with one click: <a href="{{ leaveUrl }}">Leave project</a> (the page asks you to confirm first).</p>`;

/** The address a "Leave project" link opens (api/routes/leaveProjectPage.ts). */
export const leaveUrl = (config: Pick<Config, 'appUrl' | 'jwtSecret'>, t: { projectId: string; userId: string; joinedAt: Date }) =>
  `${config.appUrl}/leave-project?token=${signLeaveToken(config.jwtSecret, { projectId: t.projectId, userId: t.userId, joinedAt: t.joinedAt.getTime() })}`;

/**
 * "Added, and told": a verified account added to a project joins at once (POST /projects/:id/members
 * → 201), so it is told by email who added it where, with a link to leave (docs/roles.md).
 */
export async function mailAddedMember(
  deps: { config: Config; knex: Knex; temporal: TemporalGateway; log: Logger },
  m: { to: string; adder: string; projectId: string; projectName: string; role: Role; userId: string; joinedAt: Date },
): Promise<string> {
  return sendSystemEmail(deps, {
    to: m.to,
    subject: ADDED_SUBJECT,
    body: ADDED_EMAIL,
    variables: {
      adder: m.adder,
      project: m.projectName,
      role: m.role,
      appUrl: `${deps.config.appUrl}/app/`,
      leaveUrl: leaveUrl(deps.config, m),
    },
  });
}
