import type { ExecutionDetail } from '../../api/workflows';
import { momentWords, numberWords } from '../../api/dates';
import { i18n } from '../../i18n';
import { stepWords } from './stepWords';

/**
 * What a step of an execution did, in words, for the timeline (the raw output stays one click away).
 * Each step type's output is read for the words it carries; an unknown type (a plugin's) gets the
 * generic sentence by its status and branch.
 */

type HistoryStep = ExecutionDetail['steps'][number];

const t = () => i18n.getFixedT(null, 'workflows');

const UNITS = [
  [86_400_000, 'day', 'days'],
  [3_600_000, 'hour', 'hours'],
  [60_000, 'minute', 'minutes'],
  [1_000, 'second', 'seconds'],
] as const;

/** 172800000 → "2 days"; below a second, "a moment". */
export function durationWords(ms: number): string {
  for (const [size, one, many] of UNITS) {
    if (ms >= size) {
      const n = Math.round((ms / size) * 10) / 10;
      return t()(`story.duration.${n === 1 ? one : many}`, { n: numberWords(n) });
    }
  }
  return t()('story.duration.moment');
}

/** A known code's words, else the code as it is (a plugin's, or one added on the server since). */
function known<K extends string>(words: Record<K, string>, code: string): string {
  return code in words ? words[code as K] : code;
}

export function stepStory(s: HistoryStep): string {
  const w = t();
  const o = (s.output && typeof s.output === 'object' ? s.output : {}) as Record<string, unknown>;
  const took = s.branch ? w('story.took', { branch: stepWords(i18n.getFixedT(null, 'steps')).branch(s.branch) }) : '';
  const ended = typeof o.ended === 'string' ? `; ${o.ended}` : '';
  if (s.status === 'RUNNING') return w('story.inProgress');
  if (s.status === 'CANCELLED') return w('story.cancelledHere');
  if (s.status === 'FAILED') return s.error ? w('story.failedWith', { error: s.error }) : w('story.failed');
  let words: string;
  switch (s.type) {
    case 'TRIGGER':
      words = w('story.trigger');
      break;
    case 'DELAY':
      words = typeof o.delayedMs === 'number' ? w('story.waitedFor', { duration: durationWords(o.delayedMs) }) : w('story.waited');
      break;
    case 'WAIT_UNTIL':
      words = typeof o.wakeAt === 'string' ? w('story.waitedUntil', { moment: momentWords(o.wakeAt) }) : w('story.waited');
      break;
    case 'CONDITION':
      words = o.matched ? w('story.conditionHeld') : w('story.conditionNotHeld');
      break;
    case 'WAIT_FOR_EVENT':
      words = o.timedOut ? w('story.eventTimedOut') : w('story.eventCame');
      break;
    case 'RANDOM_SPLIT':
      words = w('story.randomSplit');
      break;
    case 'SEND_EMAIL':
      if (s.status === 'SKIPPED') {
        const reasons = w('story.reason', { returnObjects: true });
        words = w('story.sentNothing', { reason: o.reason === undefined || o.reason === null ? reasons.skipped : known(reasons, String(o.reason)) });
      } else {
        words =
          typeof o.status === 'string' ? w('story.sentStatus', { status: known(w('story.emailStatus', { returnObjects: true }), o.status) }) : w('story.sent');
      }
      break;
    case 'UPDATE_CONTACT':
      if (Array.isArray(o.changed)) words = o.changed.length ? w('story.updatedFields', { fields: o.changed.join(', ') }) : w('story.updatedNothing');
      else words = o.changed === false ? w('story.updatedNothing') : w('story.updated');
      break;
    case 'WEBHOOK':
      words = typeof o.status === 'number' ? w('story.webhookAnswered', { status: o.status }) : w('story.webhook');
      break;
    case 'EXIT':
      return w('story.exit');
    default:
      words = s.status === 'SKIPPED' ? w('story.skipped') : w('story.done');
  }
  return `${words}${took}${ended}.`;
}

/** What a waiting execution waits for, or when it resumes: "resumes 3 Dec, 09:00 Europe/Paris". */
export function waitWords(e: { waitingFor?: string | null; wakeAt?: string | null; waitingReason?: string | null }): string | null {
  const w = t();
  if (e.waitingFor)
    return e.wakeAt ? w('story.waitsForUntil', { what: e.waitingFor, moment: momentWords(e.wakeAt) }) : w('story.waitsFor', { what: e.waitingFor });
  if (e.wakeAt) return w('story.resumes', { moment: momentWords(e.wakeAt) });
  return e.waitingReason ?? null;
}

/** An execution's or a step's status in words ("Running" for RUNNING); a code the dashboard does not know, as it is. */
export function statusWords(status: string): string {
  return known(t()('status', { returnObjects: true }), status);
}
