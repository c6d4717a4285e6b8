import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * No words in the dashboard's code outside the catalogues (web/src/i18n, docs/dashboard.md
 * "Languages"): in the files converted so far, any JSX text, or string in a user-facing attribute or
 * property (label, placeholder, title, aria-label, description, alt, error, message), that contains a
 * letter and is not a t(...) call fails. The list grows as screens are translated; the goal is all of
 * web/src.
 */
const WEB = path.join(__dirname, '../../web/src');

/**
 * The whole dashboard is checked, every .tsx under web/src, except EXEMPT: routes.tsx's screen titles
 * are catalogue keys (`title: 'contacts'`), which tsc checks against the catalogue (ScreenTitle).
 */
const EXEMPT = ['routes.tsx'];

const WORDY_ATTRIBUTES = new Set(['label', 'placeholder', 'title', 'aria-label', 'description', 'alt', 'error', 'message', 'children']);
const hasLetter = (text: string) => /\p{L}/u.test(text);

/** Every .tsx under web/src, as a path relative to it. */
function allScreens(dir = WEB): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? allScreens(path.join(dir, d.name)) : d.name.endsWith('.tsx') ? [path.join(dir, d.name)] : []))
    .map((f) => path.relative(WEB, path.resolve(WEB, f)));
}

/** Literal words an expression may show: string and template literals, through ?:, ??, ||, && and parentheses; never inside a call (t(...), a helper). */
function wordsIn(node: ts.Node): ts.Node[] {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return hasLetter(node.text) ? [node] : [];
  if (ts.isTemplateExpression(node)) return hasLetter(node.head.text + node.templateSpans.map((s) => s.literal.text).join('')) ? [node] : [];
  if (ts.isParenthesizedExpression(node)) return wordsIn(node.expression);
  if (ts.isConditionalExpression(node)) return [...wordsIn(node.whenTrue), ...wordsIn(node.whenFalse)];
  if (
    ts.isBinaryExpression(node) &&
    [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.AmpersandAmpersandToken].includes(node.operatorToken.kind)
  ) {
    return [...wordsIn(node.left), ...wordsIn(node.right)];
  }
  return [];
}

/** "file:line: text" for each piece of text not taken from a catalogue. */
function untranslated(source: string, fileName = 'x.tsx'): string[] {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const report = (node: ts.Node, text: string) => {
    const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    found.push(`${path.basename(fileName)}:${line + 1}: ${text.trim()}`);
  };
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node) && hasLetter(node.text)) report(node, node.text);
    // {'words'} or {cond ? 'a' : 'b'} as a child.
    if (ts.isJsxExpression(node) && node.expression && (ts.isJsxElement(node.parent) || ts.isJsxFragment(node.parent))) {
      for (const w of wordsIn(node.expression)) report(w, w.getText(sf));
    }
    if (ts.isJsxAttribute(node) && WORDY_ATTRIBUTES.has(node.name.getText(sf)) && node.initializer) {
      const init = node.initializer;
      if (ts.isStringLiteral(init) && hasLetter(init.text)) report(init, init.text);
      if (ts.isJsxExpression(init) && init.expression) for (const w of wordsIn(init.expression)) report(w, w.getText(sf));
    }
    // { label: 'Add a contact' } in data that a screen shows; and a component's default (`title = 'Oops'`).
    if (ts.isPropertyAssignment(node) && WORDY_ATTRIBUTES.has(node.name.getText(sf).replace(/['"]/g, ''))) {
      for (const w of wordsIn(node.initializer)) report(w, w.getText(sf));
    }
    if (ts.isBindingElement(node) && node.initializer && WORDY_ATTRIBUTES.has(node.name.getText(sf))) {
      for (const w of wordsIn(node.initializer)) report(w, w.getText(sf));
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('no words outside the catalogues', () => {
  it('finds words in JSX text, user-facing attributes, shown data and defaults, and none in t(...) calls', () => {
    const sample = `
      export function A({ title = 'Oops' }) {
        const { t } = useTranslation();
        const items = [{ label: 'Add a contact', path: 'contacts' }, { label: t('ok') }];
        return (
          <Stack>
            <Title order={1}>Set up</Title>
            <TextInput label="Email" placeholder={t('p')} aria-label={busy ? 'Busy' : t('idle')} title={\`\${n} failed\`} />
            {done ? '(done)' : t('todo')}
            <Button variant="light" color="red" size="xs">{t('save')}</Button>
            {' · '}
          </Stack>
        );
      }`;
    expect(untranslated(sample).map((f) => f.replace(/^x\.tsx:\d+: /, ''))).toEqual([
      "'Oops'",
      "'Add a contact'",
      'Set up',
      'Email',
      "'Busy'",
      '`${n} failed`',
      "'(done)'",
    ]);
  });

  it('every screen takes every word from the catalogues', () => {
    const skipped = new Set(EXEMPT);
    const found = allScreens()
      .filter((file) => !skipped.has(file))
      .flatMap((file) => untranslated(fs.readFileSync(path.join(WEB, file), 'utf8'), file));
    expect(found).toEqual([]);
  });

  it('the exemptions name files that exist', () => {
    const all = new Set(allScreens());
    expect(EXEMPT.filter((file) => !all.has(file))).toEqual([]);
  });
});
