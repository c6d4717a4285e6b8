/** The settings screens' words (see test/unit/noStrings.test.ts for the files). */
export const settings = {};
