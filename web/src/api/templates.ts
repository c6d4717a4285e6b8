import { ApiError } from './client';

export const TEMPLATE_TYPES = ['MARKETING', 'TRANSACTIONAL', 'HEADLESS'] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

/**
 * The template routes answer validation failures with the spec's flat `{ error }` body, each message
 * a sentence naming its field (api/schemas/templates.ts: "From address must be a valid email address").
 * Its field, by that name, so the editor shows it on the input; the preview's 422 envelope names fields itself.
 * In French and German (the dashboard's Accept-Language) the sentence names the field as the server's
 * catalogue does (lib/fieldSentences/labels.ts; test/unit/webForms.test.ts holds the two together).
 */
const LABELS: Array<[prefix: string, field: string]> = [
  ['From address', 'from'],
  ['From name', 'fromName'],
  ['Reply-to address', 'replyTo'],
  ['Name', 'name'],
  ['Description', 'description'],
  ['Subject', 'subject'],
  ['Body', 'body'],
  ['Text', 'text'],
  ['Type', 'type'],
  ...(
    [
      ['from', 'Expéditeur', 'Absender'],
      ['fromName', 'Nom de l’expéditeur', 'Absendername'],
      ['replyTo', 'Répondre à', 'Antwort an'],
      ['name', 'Nom', 'Name'],
      ['description', 'Description', 'Beschreibung'],
      ['subject', 'Objet', 'Betreff'],
      ['body', 'Corps', 'Inhalt'],
      ['text', 'Texte', 'Text'],
      ['type', 'Type', 'Typ'],
    ] as const
  ).flatMap(
    ([field, fr, de]): Array<[string, string]> => [
      [`Le champ « ${fr} »`, field],
      [`Das Feld „${de}“`, field],
    ],
  ),
];

export function templateFieldOf(error: unknown): { field: string; message: string } | null {
  if (!(error instanceof ApiError)) return null;
  const [first] = Object.entries(error.fields);
  if (first) return { field: first[0], message: first[1] };
  if (error.status !== 400) return null;
  const hit = LABELS.find(([prefix]) => error.message.startsWith(`${prefix} `));
  return hit ? { field: hit[1], message: error.message } : null;
}

/**
 * "Preview data (JSON)": an object of variables, or why it is not one (with the JSON parser's own
 * `reason`). The problem is a key of the editor catalogue (`previewData.*`): the screen says it in
 * words, and this module runs under Node without i18next.
 */
export function parsePreviewData(source: string): { data?: Record<string, unknown>; problem?: 'notObject' | 'notJson'; reason?: string } {
  if (!source.trim()) return { data: {} };
  try {
    const v = JSON.parse(source) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return { problem: 'notObject' };
    return { data: v as Record<string, unknown> };
  } catch (err) {
    return { problem: 'notJson', reason: (err as Error).message };
  }
}
