import { notValid, sentenceWords } from './errorWords';

/**
 * The API's 422 details as people read them: one sentence per field (the server writes them in the
 * dashboard's language, which client.ts sends as Accept-Language; see lib/zodSentences.ts), for an input's `error=` prop, and the same sentences in place of the envelope's
 * "Request validation failed" wherever a form shows one alert (ErrorState, a toast).
 */

/** zod's developer English, should an older server or another path still send it: never shown as is. */
const DEVELOPER_TEXT = /^(Too small|Too big|Invalid input|Invalid option|Invalid string|Unrecognized key)|expected .+, received|[<>]=|must match pattern/;

/** A field's sentence in the dashboard's language where its words are known (errorWords.ts), a plain one in place of developer text, else the server's. */
export function forPeople(message: string): string {
  return DEVELOPER_TEXT.test(message) ? notValid() : (sentenceWords(message) ?? message);
}

/** `fieldErrors(error)` → `{ email: "Enter a valid email address", "quietHours.start": "Start must be …" }` (first sentence per field). */
export function fieldErrors(error: unknown): Record<string, string> {
  const fields = (error as { fields?: unknown } | null | undefined)?.fields;
  return fields && typeof fields === 'object' ? (fields as Record<string, string>) : {};
}

/** The one message a failed request shows: its field sentences when it has them, else the API's own message. */
export function peopleMessage(message: string, fields: Record<string, string>): string {
  const sentences = [...new Set(Object.values(fields))].map((s) => s.replace(/[.\s]+$/, ''));
  return sentences.length ? `${sentences.join('. ')}.` : message;
}
