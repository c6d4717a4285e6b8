/** The reader's own IANA time zone ("Europe/Paris"); UTC when the browser names none. */
export const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/**
 * "3 Dec, 09:00 Europe/Paris" (with the year when it is not this one): a moment in the reader's own
 * time zone, always named, so a time on a screen never leaves its zone to be guessed.
 */
export function momentWords(iso: string): string {
  const d = new Date(iso);
  const sameYear = d.getFullYear() === new Date().getFullYear();
  const day = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', ...(sameYear ? {} : { year: 'numeric' }) }).format(d);
  const time = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hour12: false }).format(d);
  return `${day}, ${time} ${browserZone()}`;
}
