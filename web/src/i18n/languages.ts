/** The languages the dashboard speaks. English is bundled with the first screen; the others load when chosen (index.ts). */
export const LANGUAGES = ['en', 'fr', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];
