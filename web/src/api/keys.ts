/**
 * Full API keys are shown once, right after creation or rotation. They live in this module's memory
 * only — never in localStorage, sessionStorage or the history state — and are gone on reload.
 */
const revealed = new Map<string, { publicKey: string; secretKey: string }>();

export const rememberKeys = (projectId: string, keys: { publicKey: string; secretKey: string }) => revealed.set(projectId, keys);
export const revealedKeys = (projectId: string) => revealed.get(projectId);
export const forgetKeys = (projectId: string) => revealed.delete(projectId);
