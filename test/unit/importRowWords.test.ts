import { IMPORT_ROW_WORDS, type ImportRowProblem, importRowMessage } from '../../lib/importRowWords';
import { convertCell } from '../../lib/importTypes';

/** Every kind of row problem, with the English the import wrote before its words had other languages. */
const ENGLISH: [ImportRowProblem, string][] = [
  [{ kind: 'misfit', column: 'Score', value: 'abc', type: 'number' }, 'column Score: "abc" is not a number'],
  [{ kind: 'misfit', column: 'VIP', value: 'maybe', type: 'boolean' }, 'column VIP: "maybe" is not true or false (true, false, yes, no, 1, 0)'],
  [{ kind: 'misfit', column: 'Joined', value: '03/04/2024', type: 'date' }, 'column Joined: "03/04/2024" is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)'],
  [{ kind: 'cellCount', cells: 3, width: 2 }, 'the row has 3 cells but the header has 2'],
  [{ kind: 'nul' }, 'the row contains a NUL character'],
  [{ kind: 'emailRequired' }, 'email is required'],
  [{ kind: 'emailInvalid' }, 'email is not a valid email address'],
  [{ kind: 'subscribedInvalid' }, 'subscribed must be one of true, false, 1, 0, yes, no'],
];

describe('an import row’s problem', () => {
  it('reads as before in English, the default', () => {
    for (const [problem, english] of ENGLISH) expect(importRowMessage(problem)).toBe(english);
    expect(convertCell('number', 'abc')).toEqual({ problem: 'is not a number' });
  });

  it('is exact in French and German, with the plural each count takes', () => {
    expect(importRowMessage(ENGLISH[0][0], 'fr')).toBe('colonne Score : "abc" n’est pas un nombre');
    expect(importRowMessage(ENGLISH[1][0], 'de')).toBe('Spalte VIP: "maybe" ist weder wahr noch falsch (true, false, yes, no, 1, 0)');
    expect(importRowMessage({ kind: 'cellCount', cells: 3, width: 1 }, 'fr')).toBe('la ligne a 3 cellules mais l’en-tête n’a qu’une colonne');
    expect(importRowMessage({ kind: 'cellCount', cells: 3, width: 2 }, 'fr')).toBe('la ligne a 3 cellules mais l’en-tête n’a que 2 colonnes');
    expect(importRowMessage({ kind: 'cellCount', cells: 3, width: 2 }, 'de')).toBe('die Zeile hat 3 Zellen, die Kopfzeile aber nur 2 Spalten');
    expect(importRowMessage({ kind: 'emailRequired' }, 'fr')).toBe('l’adresse e-mail est obligatoire');
  });

  it('has words for every kind in every language', () => {
    for (const [problem, english] of ENGLISH) {
      for (const lang of ['fr', 'de'] as const) {
        const said = importRowMessage(problem, lang);
        expect(said).not.toBe(english);
        expect(said).not.toMatch(/\b(column|row|is|not|must|required)\b/);
      }
    }
    expect(Object.keys(IMPORT_ROW_WORDS).sort()).toEqual(['de', 'en', 'fr']);
  });
});
