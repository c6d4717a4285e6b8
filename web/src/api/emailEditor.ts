import { ApiError, fieldsOf, forProject, messageOf } from './client';

/**
 * The email editor's routes (issue 40: drafts, versions, starters, brand, checks) and the block
 * document of lib/emailDocument.ts, as the API's OpenAPI document describes it.
 */
type Align = 'left' | 'center' | 'right';
interface Base {
  id: string;
  padding?: number;
  background?: string;
}
type Leaf =
  | (Base & { type: 'heading'; text: string; level: 1 | 2 | 3; align?: Align; color?: string })
  | (Base & { type: 'text'; html: string; align?: Align; color?: string; fontSize?: number })
  | (Base & { type: 'button'; text: string; href: string; align?: Align; color?: string; textColor?: string })
  | (Base & { type: 'image'; src: string; alt: string; href?: string; width?: number; align?: Align })
  | (Base & { type: 'divider'; color?: string; thickness?: number })
  | (Base & { type: 'spacer'; height: number })
  | (Base & { type: 'social'; links: Array<{ network: 'facebook' | 'x' | 'instagram' | 'linkedin' | 'youtube' | 'github' | 'mastodon' | 'web'; href: string }>; align?: Align })
  | (Base & { type: 'html'; html: string })
  | (Base & { type: 'footer'; text?: string; viewInBrowser?: boolean; align?: Align });
export type LeafBlock = Leaf;
export type Block = Leaf | (Base & { type: 'columns'; columns: Array<{ blocks: Leaf[] }> });
export type BlockType = Block['type'];
export interface EmailDocument {
  version: 1;
  settings: { preheader?: string; background?: string; contentBackground?: string; textColor?: string; accentColor?: string; fontFamily?: string; width?: number };
  blocks: Block[];
}

export type Editor = 'html' | 'blocks';

/** One language's content; `variants` holds the others by locale. */
export interface Content {
  subject: string;
  editor: Editor;
  body: string;
  document: EmailDocument | null;
  text: string | null;
}

export interface VariantContent {
  subject: string;
  body?: string;
  document?: EmailDocument | null;
  text?: string | null;
}

export interface TemplateContent extends Content {
  preheader?: string | null;
  variants?: Record<string, VariantContent> | null;
}

export interface Check {
  rule: string;
  severity: 'warning' | 'error';
  message: string;
  blockId?: string | null;
}

export interface Preview {
  subject: string;
  html: string;
  text: string;
  checks?: Check[];
}

export interface Version {
  number: number;
  createdBy: { id: string; name: string | null; email: string } | null;
  createdAt: string;
  note: string | null;
}

export interface Starter {
  id: string;
  name: string;
  description: string;
  subject: string;
  document: EmailDocument;
}

export interface Brand {
  logoUrl: string | null;
  colors: { background: string; content: string; text: string; accent: string };
  fontFamily: string;
  footer: { companyName: string; address: string };
}

/**
 * A call to a route of the editor's API, with the session cookie and the project header like the typed
 * client; an error answer becomes an ApiError with the API's message and field errors.
 */
export async function call<T>(projectId: string, method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: { ...forProject(projectId), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = response.status === 204 ? undefined : await response.json().catch(() => undefined);
  if (!response.ok) {
    const { message, code } = messageOf(data, response.status);
    throw new ApiError(response.status, message, code, fieldsOf(data));
  }
  return data as T;
}

export const templatePath = (id: string, rest = '') => `/templates/${encodeURIComponent(id)}${rest}`;

export const getDraft = (projectId: string, id: string) => call<TemplateContent>(projectId, 'GET', templatePath(id, '/draft'));
export const putDraft = (projectId: string, id: string, content: TemplateContent) => call<TemplateContent>(projectId, 'PUT', templatePath(id, '/draft'), content);
export const publish = (projectId: string, id: string, note: string) => call<Version>(projectId, 'POST', templatePath(id, '/publish'), note.trim() ? { note } : {});
export const listVersions = (projectId: string, id: string) => call<{ data: Version[] }>(projectId, 'GET', templatePath(id, '/versions'));
export const getVersion = (projectId: string, id: string, n: number) => call<TemplateContent>(projectId, 'GET', templatePath(id, `/versions/${n}`));
export const restoreVersion = (projectId: string, id: string, n: number) => call<unknown>(projectId, 'POST', templatePath(id, `/versions/${n}/restore`));
export const sendTest = (projectId: string, id: string, to: string) => call<unknown>(projectId, 'POST', templatePath(id, '/test'), { to });
export const listStarters = (projectId: string) => call<{ data: Starter[] }>(projectId, 'GET', '/templates/starters');
export const getBrand = (projectId: string) => call<Brand>(projectId, 'GET', '/brand');
export const putBrand = (projectId: string, brand: Brand) => call<Brand>(projectId, 'PUT', '/brand', brand);

export interface PreviewInput {
  subject: string;
  editor: Editor;
  body?: string;
  document?: EmailDocument;
  text?: string | null;
  type?: string;
  data?: Record<string, unknown>;
  contactId?: string;
}

/** POST /templates/preview: the compiled, rendered email and its checks. */
export const previewEmail = (projectId: string, input: PreviewInput) => call<Preview>(projectId, 'POST', '/templates/preview', input);
