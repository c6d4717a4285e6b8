import { de } from './de';
import { en } from './en';
import { fr } from './fr';

/**
 * The dashboard's catalogues: a namespace per area (one file per language and area, so people
 * translating different screens do not edit the same file). English is the reference: fr and de are
 * typed from it (types.ts). A new namespace is added to each language's index.ts.
 * Only the types and the tests read this object: the dashboard bundles English and loads the
 * language a person uses when it is needed (index.ts), so the first screen does not carry three.
 */
export const resources = { en, fr, de };

export { LANGUAGES, type Language } from './languages';
