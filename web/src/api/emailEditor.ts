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

// Every caller is on a project page (/app/p/:projectId/…): the client's middleware adds its X-Project-Id.
const id = (templateId: string) => ({ params: { path: { id: templateId } } });
/**
 * The calls that run after an awaited save (the draft's content after its settings, "Publish" and
 * "Send test" after saving) name their project: the person may have switched projects meanwhile, and
 * the page's address would then name the other one (docs/dashboard.md, "The project header is added once").
 */
const ownProject = (projectId: string, templateId: string) => ({ ...id(templateId), headers: forProject(projectId) });
const version = (templateId: string, n: number) => ({ params: { path: { id: templateId, n } } });

export const getDraft = (templateId: string) => unwrap(api.GET('/templates/{id}/draft', id(templateId)));
export const putDraft = (projectId: string, templateId: string, content: ContentIn) =>
  unwrap(api.PUT('/templates/{id}/draft', { ...ownProject(projectId, templateId), body: content }));
export const publish = (projectId: string, templateId: string, note: string) =>
  unwrap(api.POST('/templates/{id}/publish', { ...ownProject(projectId, templateId), body: note.trim() ? { note } : {} }));
export const listVersions = (templateId: string) => unwrap(api.GET('/templates/{id}/versions', id(templateId)));
export const getVersion = (templateId: string, n: number) => unwrap(api.GET('/templates/{id}/versions/{n}', version(templateId, n)));
export const restoreVersion = (templateId: string, n: number) => unwrap(api.POST('/templates/{id}/versions/{n}/restore', version(templateId, n)));
export const listStarters = () => unwrap(api.GET('/templates/starters'));
export const getBrand = () => unwrap(api.GET('/brand'));
export const putBrand = (brand: BodyOf<'/brand', 'put'>) => unwrap(api.PUT('/brand', { body: brand }));

/** "Send test": the saved draft (else the published content) to `to`, the signed-in person's address when absent. */
export const sendTest = (projectId: string, templateId: string, body: BodyOf<'/templates/{id}/test', 'post'>) =>
  unwrap(api.POST('/templates/{id}/test', { ...ownProject(projectId, templateId), body }));

/** POST /templates/preview: the compiled, rendered email and its checks. */
export const previewEmail = (input: PreviewInput) => unwrap(api.POST('/templates/preview', { body: input }));
