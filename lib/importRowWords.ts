import type { FieldType } from './contactData';
import type { SentenceLanguage } from './fieldSentences/types';
import { pluralForm } from './pluralForm';

/**
 * Why a CSV row of an import is not a contact, as parts (services/contactImport.ts): the job stores
 * them beside the English message, so its reader gets the message in their own language
 * (api/presenters/jobs.ts). `value` is the cell as written, cut at 40 characters.
 */
export type ImportRowProblem =
  | { kind: 'misfit'; column: string; value: string; type: Exclude<FieldType, 'string'> }
  | { kind: 'cellCount'; cells: number; width: number }
  | { kind: 'nul' }
  | { kind: 'emailRequired' }
  | { kind: 'emailInvalid' }
  | { kind: 'subscribedInvalid' };

/** The words of each problem in one language: a missing one fails tsc. The dashboard puts "Row 5, " in front. */
export interface ImportRowWords {
  /** What a cell is not, by the column's type ("is not a number"). */
  notA: Record<Exclude<FieldType, 'string'>, string>;
  /** `value` comes quoted as JSON, `notA` is the type's words. */
  misfit(column: string, value: string, notA: string): string;
  cellCount(cells: number, width: number): string;
  nul: string;
  emailRequired: string;
  emailInvalid: string;
  subscribedInvalid: string;
}

export const IMPORT_ROW_WORDS: Record<SentenceLanguage, ImportRowWords> = {
  en: {
    notA: {
      number: 'is not a number',
      boolean: 'is not true or false (true, false, yes, no, 1, 0)',
      date: 'is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)',
    },
    misfit: (column, value, notA) => `column ${column}: ${value} ${notA}`,
    cellCount: (cells, width) => `the row has ${cells} ${pluralForm('en', cells) === 'one' ? 'cell' : 'cells'} but the header has ${width}`,
    nul: 'the row contains a NUL character',
    emailRequired: 'email is required',
    emailInvalid: 'email is not a valid email address',
    subscribedInvalid: 'subscribed must be one of true, false, 1, 0, yes, no',
  },
  fr: {
    notA: {
      number: 'n’est pas un nombre',
      boolean: 'n’est ni vrai ni faux (true, false, yes, no, 1, 0)',
      date: 'n’est pas une date (AAAA-MM-JJ ou AAAA-MM-JJTHH:MM:SSZ)',
    },
    misfit: (column, value, notA) => `colonne ${column} : ${value} ${notA}`,
    cellCount: (cells, width) =>
      `la ligne a ${cells} ${pluralForm('fr', cells) === 'one' ? 'cellule' : 'cellules'} mais l’en-tête n’a ${pluralForm('fr', width) === 'one' ? 'qu’une colonne' : `que ${width} colonnes`}`,
    nul: 'la ligne contient un caractère NUL',
    emailRequired: 'l’adresse e-mail est obligatoire',
    emailInvalid: 'l’adresse e-mail n’est pas valide',
    subscribedInvalid: 'subscribed doit valoir true, false, 1, 0, yes ou no',
  },
  de: {
    notA: {
      number: 'ist keine Zahl',
      boolean: 'ist weder wahr noch falsch (true, false, yes, no, 1, 0)',
      date: 'ist kein Datum (JJJJ-MM-TT oder JJJJ-MM-TTTHH:MM:SSZ)',
    },
    misfit: (column, value, notA) => `Spalte ${column}: ${value} ${notA}`,
    cellCount: (cells, width) =>
      `die Zeile hat ${cells} ${pluralForm('de', cells) === 'one' ? 'Zelle' : 'Zellen'}, die Kopfzeile aber nur ${width} ${pluralForm('de', width) === 'one' ? 'Spalte' : 'Spalten'}`,
    nul: 'die Zeile enthält ein NUL-Zeichen',
    emailRequired: 'die E-Mail-Adresse fehlt',
    emailInvalid: 'die E-Mail-Adresse ist ungültig',
    subscribedInvalid: 'subscribed muss true, false, 1, 0, yes oder no sein',
  },
};

/** A row problem's message in `lang`. */
export function importRowMessage(problem: ImportRowProblem, lang: SentenceLanguage = 'en'): string {
  const words = IMPORT_ROW_WORDS[lang];
  switch (problem.kind) {
    case 'misfit':
      return words.misfit(problem.column, JSON.stringify(problem.value), words.notA[problem.type]);
    case 'cellCount':
      return words.cellCount(problem.cells, problem.width);
    default:
      return words[problem.kind];
  }
}
