import createClient from 'openapi-fetch';
import i18n from 'i18next';
import type { paths } from './schema';
import { forPeople, peopleMessage } from './fieldErrors';
import { errorWords, serverAnswered } from './errorWords';

/**
 * The dashboard is a client of the public API on the same origin: the session cookie (httpOnly,
 * never readable here) authenticates, and project resources take `X-Project-Id` (docs/api.md,
 * "Cookie access"). Nothing secret is ever written to localStorage.
 */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });

/** The project of the page's address (/app/p/:projectId/…): the one every project call on it is about. */
export function currentProjectId(): string | null {
  // globalThis: this module is also compiled by the server's unit tests, which have no `window`.
  const path = (globalThis as unknown as { location?: { pathname: string } }).location?.pathname ?? '';
  const m = /^\/app\/p\/([^/]+)/.exec(path);
  return m ? decodeURIComponent(m[1]) : null;
}

/** The dashboard's language (i18next's current one), which the API's field sentences follow (docs/api.md, "Errors"). */
export const dashboardLanguage = (): string => i18n.resolvedLanguage ?? i18n.language ?? 'en';

// The project header, added once here instead of at every call. A call that names a project itself
// (a page outside /app/p/…, or a raw fetch through forProject) keeps its own. Accept-Language is the
// dashboard's language, not the browser's: a person who chose French in their profile reads a 422 in French.
api.use({
  onRequest({ request }) {
    const projectId = currentProjectId();
    if (projectId && !request.headers.has('X-Project-Id')) request.headers.set('X-Project-Id', projectId);
    if (!request.headers.has('Accept-Language')) request.headers.set('Accept-Language', dashboardLanguage());
    return request;
  },
});

/** The JSON a route answers with `status` (200 unless given), as the server's OpenAPI document says. */
export type ResponseOf<P extends keyof paths, M extends keyof paths[P], S extends number = 200> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer T } } };
}
  ? T
  : never;

/** The JSON body a route takes, as the server's OpenAPI document says. */
export type BodyOf<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer T } };
}
  ? T
  : never;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    /** The envelope's `errors[]` (422 VALIDATION_ERROR): message by field, for forms to show on the field. */
    readonly fields: Record<string, string> = {},
  ) {
    // A 422 reads as its field sentences, never as the envelope's "Request validation failed"; a
    // fixed sentence of the server's (by code or by its words) in the dashboard's language.
    super(peopleMessage(errorWords(message, code), fields));
  }
}

/** The envelope's field errors, first message per field (`settings.quietHours.start` keeps its full path). */
export function fieldsOf(body: unknown): Record<string, string> {
  const errors = (body as { error?: { errors?: unknown } } | undefined)?.error?.errors;
  const out: Record<string, string> = {};
  if (!Array.isArray(errors)) return out;
  for (const e of errors as Array<{ field?: unknown; message?: unknown }>) {
    if (typeof e?.field === 'string' && typeof e.message === 'string' && !(e.field in out)) out[e.field] = forPeople(e.message);
  }
  return out;
}

/** Whether the API named fields (then the form shows them there instead of one alert). */
export const hasFieldErrors = (error: unknown) => error instanceof ApiError && Object.keys(error.fields).length > 0;

/** The message the API gave for `field` (an ApiError's field errors), for an input's `error` prop. */
export function fieldError(error: unknown, field: string): string | undefined {
  return error instanceof ApiError ? error.fields[field] : undefined;
}

/** The API's own message: `{ error: { code, message } }`, or the flat `{ error: "…" }` some routes answer. */
export function messageOf(body: unknown, status: number): { message: string; code?: string } {
  const e = (body as { error?: unknown } | undefined)?.error;
  if (typeof e === 'string') return { message: e };
  if (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') {
    return { message: (e as { message: string }).message, code: (e as { code?: string }).code };
  }
  return { message: serverAnswered(status) };
}

/** The data of an openapi-fetch call, or an ApiError carrying the API's message. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) {
    const { message, code } = messageOf(error, response.status);
    throw new ApiError(response.status, message, code, fieldsOf(error));
  }
  return data as T;
}

/** The headers the client's middleware adds (project, language), for a raw `fetch` (a download, an upload) it does not see. */
export const forProject = (projectId: string) => ({ 'X-Project-Id': projectId, 'Accept-Language': dashboardLanguage() });

/** Shapes the pages share, from the server's response schemas. */
export type User = ResponseOf<'/users/@me', 'get'>;
/** A project of GET /users/@me/projects: with the user's role and who added them (null on the projects they created). */
export type Project = ResponseOf<'/users/@me/projects', 'get'>[number];
export type Role = Project['role'];
export type AppConfig = ResponseOf<'/config', 'get'>;
