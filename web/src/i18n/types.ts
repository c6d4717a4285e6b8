/**
 * A translation of an English catalogue: the same keys, nested the same way, any words. tsc then
 * refuses a French or German file that lacks a key or has one English does not
 * (test/unit/i18nCatalogues.test.ts checks the same at run time).
 */
export type Catalogue<T> = { [K in keyof T]: T[K] extends string ? string : Catalogue<T[K]> };
