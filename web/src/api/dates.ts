import { intlLocale } from '../i18n/locale';

/** The reader's own IANA time zone ("Europe/Paris"); UTC when the browser names none. */
export const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

const sameYear = (d: Date) => d.getFullYear() === new Date().getFullYear();

/**
 * "3 Dec, 09:00 Europe/Paris" ("3 déc., 09:00 Europe/Paris", "3. Dez., 09:00 Europe/Paris"; with
 * the year when it is not this one): a moment in the reader's own time zone in the dashboard's
 * language, always named, so a time on a screen never leaves its zone to be guessed.
 */
export function momentWords(iso: string, opts: { seconds?: boolean } = {}): string {
  const d = new Date(iso);
  const locale = intlLocale();
  const day = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', ...(sameYear(d) ? {} : { year: 'numeric' }) }).format(d);
  const time = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', ...(opts.seconds ? { second: '2-digit' } : {}), hour12: false }).format(d);
  return `${day}, ${time} ${browserZone()}`;
}

/**
 * "3 Dec 2026": a calendar day in the dashboard's language, for what is a day rather than a moment
 * (joined, invited, a billing period). `zone` says whose day it is: the reader's unless the server
 * counted the day in another one (UTC buckets); `year: false` for a chart's axis.
 */
export function dayWords(iso: string, opts: { zone?: string; year?: boolean } = {}): string {
  return new Intl.DateTimeFormat(intlLocale(), {
    day: 'numeric',
    month: 'short',
    ...(opts.year === false ? {} : { year: 'numeric' }),
    ...(opts.zone ? { timeZone: opts.zone } : {}),
  }).format(new Date(iso));
}

/** "12,345" / "12 345" / "12.345": a count in the dashboard's language. */
export function numberWords(n: number): string {
  return new Intl.NumberFormat(intlLocale()).format(n);
}
