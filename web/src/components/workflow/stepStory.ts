import type { ExecutionDetail } from '../../api/workflows';
import { momentWords } from '../../api/dates';

/**
 * What a step of an execution did, in words, for the timeline (the raw output stays one click away).
 * Each step type's output is read for the words it carries; an unknown type (a plugin's) gets the
 * generic sentence by its status and branch.
 */

type HistoryStep = ExecutionDetail['steps'][number];

const TIMEOUT_WORDS: Array<[number, string]> = [
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1_000, 'second'],
];

/** 172800000 → "2 days"; below a second, "a moment". */
export function durationWords(ms: number): string {
  for (const [size, unit] of TIMEOUT_WORDS) {
    if (ms >= size) {
      const n = Math.round((ms / size) * 10) / 10;
      return `${n} ${unit}${n === 1 ? '' : 's'}`;
    }
  }
  return 'a moment';
}

const REASONS: Record<string, string> = {
  unsubscribed: 'the contact is unsubscribed',
  frequency_cap: 'the contact reached the frequency cap',
};

export function stepStory(s: HistoryStep): string {
  const o = (s.output && typeof s.output === 'object' ? s.output : {}) as Record<string, unknown>;
  const took = s.branch ? ` and took ‘${s.branch}’` : '';
  const ended = typeof o.ended === 'string' ? `; ${o.ended}` : '';
  if (s.status === 'RUNNING') return 'In progress.';
  if (s.status === 'CANCELLED') return 'Cancelled here.';
  if (s.status === 'FAILED') return `Failed${s.error ? `: ${s.error}` : '.'}`;
  let words: string;
  switch (s.type) {
    case 'TRIGGER':
      words = 'Started by the trigger event';
      break;
    case 'DELAY':
      words = typeof o.delayedMs === 'number' ? `Waited ${durationWords(o.delayedMs)}` : 'Waited';
      break;
    case 'WAIT_UNTIL':
      words = typeof o.wakeAt === 'string' ? `Waited until ${momentWords(o.wakeAt)}` : 'Waited';
      break;
    case 'CONDITION':
      words = o.matched ? 'The condition held' : 'The condition did not hold';
      break;
    case 'WAIT_FOR_EVENT':
      words = o.timedOut ? 'No event came in time' : 'The event came';
      break;
    case 'RANDOM_SPLIT':
      words = 'Drew a branch at random';
      break;
    case 'SEND_EMAIL':
      if (s.status === 'SKIPPED') words = `Sent nothing: ${REASONS[String(o.reason)] ?? String(o.reason ?? 'skipped')}`;
      else words = `Sent the email${typeof o.status === 'string' ? ` (${o.status.toLowerCase()})` : ''}`;
      break;
    case 'UPDATE_CONTACT':
      if (Array.isArray(o.changed)) words = o.changed.length ? `Updated the contact (${o.changed.join(', ')})` : 'Updated the contact (nothing changed)';
      else words = o.changed === false ? 'Updated the contact (nothing changed)' : 'Updated the contact';
      break;
    case 'WEBHOOK':
      words = typeof o.status === 'number' ? `Called the webhook: it answered ${o.status}` : 'Called the webhook';
      break;
    case 'EXIT':
      return 'Ended the execution.';
    default:
      words = s.status === 'SKIPPED' ? 'Skipped' : 'Done';
  }
  return `${words}${took}${ended}.`;
}

/** What a waiting execution waits for, or when it resumes: "resumes 3 Dec, 09:00 Europe/Paris". */
export function waitWords(e: { waitingFor?: string | null; wakeAt?: string | null; waitingReason?: string | null }): string | null {
  if (e.waitingFor) return `waits for ${e.waitingFor}${e.wakeAt ? ` until ${momentWords(e.wakeAt)}` : ''}`;
  if (e.wakeAt) return `resumes ${momentWords(e.wakeAt)}`;
  return e.waitingReason ?? null;
}
