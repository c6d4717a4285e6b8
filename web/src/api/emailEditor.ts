import { api, type BodyOf, forProject, type ResponseOf, unwrap } from './client';
import type { components } from './schema';

/**
 * The email editor's routes (issue 40: drafts, versions, starters, brand, checks, test sends) and the
 * block document of lib/emailDocument.ts, all as the API's OpenAPI document describes them (generated
 * by `npm run web:types`): the zod schemas are the one definition of each shape.
 */
type Schemas = components['schemas'];

/** A document as the API answers it (defaults filled in); the editor edits and sends back this shape. */
export type EmailDocument = Schemas['EmailDocument'];
export type Block = Schemas['EmailBlock'];
/** The blocks a column holds: every block but columns. */
export type LeafBlock = Schemas['EmailLeafBlock'];
export type BlockType = Block['type'];

/** A template's draft or published content; `variants` holds the other languages by locale. */
export type TemplateContent = ResponseOf<'/templates/{id}/draft', 'get'>;
export type Editor = TemplateContent['editor'];
/** The content PUT /templates/:id/draft takes. */
export type ContentIn = BodyOf<'/templates/{id}/draft', 'put'>;
/** One language's content as the editor sends it. */
export type VariantContent = NonNullable<ContentIn['variants']>[string];

export type Preview = ResponseOf<'/templates/preview', 'post'>;
export type PreviewInput = BodyOf<'/templates/preview', 'post'>;
export type Check = Preview['checks'][number];
export type Version = ResponseOf<'/templates/{id}/versions', 'get'>['data'][number];
export type Starter = ResponseOf<'/templates/starters', 'get'>['data'][number];
export type Brand = ResponseOf<'/brand', 'get'>;

const id = (projectId: string, templateId: string) => ({ params: { path: { id: templateId } }, headers: forProject(projectId) });
const version = (projectId: string, templateId: string, n: number) => ({ params: { path: { id: templateId, n } }, headers: forProject(projectId) });

export const getDraft = (projectId: string, templateId: string) => unwrap(api.GET('/templates/{id}/draft', id(projectId, templateId)));
export const putDraft = (projectId: string, templateId: string, content: ContentIn) =>
  unwrap(api.PUT('/templates/{id}/draft', { ...id(projectId, templateId), body: content }));
export const publish = (projectId: string, templateId: string, note: string) =>
  unwrap(api.POST('/templates/{id}/publish', { ...id(projectId, templateId), body: note.trim() ? { note } : {} }));
export const listVersions = (projectId: string, templateId: string) => unwrap(api.GET('/templates/{id}/versions', id(projectId, templateId)));
export const getVersion = (projectId: string, templateId: string, n: number) =>
  unwrap(api.GET('/templates/{id}/versions/{n}', version(projectId, templateId, n)));
export const restoreVersion = (projectId: string, templateId: string, n: number) =>
  unwrap(api.POST('/templates/{id}/versions/{n}/restore', version(projectId, templateId, n)));
export const listStarters = (projectId: string) => unwrap(api.GET('/templates/starters', { headers: forProject(projectId) }));
export const getBrand = (projectId: string) => unwrap(api.GET('/brand', { headers: forProject(projectId) }));
export const putBrand = (projectId: string, brand: BodyOf<'/brand', 'put'>) => unwrap(api.PUT('/brand', { headers: forProject(projectId), body: brand }));

/** "Send test": the saved draft (else the published content) to `to`, the signed-in person's address when absent. */
export const sendTest = (projectId: string, templateId: string, body: BodyOf<'/templates/{id}/test', 'post'>) =>
  unwrap(api.POST('/templates/{id}/test', { ...id(projectId, templateId), body }));

/** POST /templates/preview: the compiled, rendered email and its checks. */
export const previewEmail = (projectId: string, input: PreviewInput) => unwrap(api.POST('/templates/preview', { headers: forProject(projectId), body: input }));
