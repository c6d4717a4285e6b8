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
 * The whole dashboard is checked, except the files below. EXEMPT for good: routes.tsx's screen titles
 * are catalogue keys (`title: 'contacts'`), which tsc checks against the catalogue (ScreenTitle).
 * NOT_YET: screens still being moved into their namespace's catalogue; a file leaves the list when
 * its words do, and the list only shrinks (a new file is checked from its first line).
 */
const EXEMPT = ['routes.tsx'];
const NOT_YET: string[] = [
  // The contacts namespace.
  'components/AddContact.tsx',
  'components/ContactEmails.tsx',
  'components/contact/ContactTimeline.tsx',
  'components/contact/EditEmail.tsx',
  'components/contact/EmailContentDialog.tsx',
  'components/contacts/BulkActions.tsx',
  'components/contacts/ColumnsMenu.tsx',
  'components/contacts/ContactTable.tsx',
  'components/contacts/ExportCsv.tsx',
  'components/contacts/FilterPanel.tsx',
  'components/contacts/ImportCsv.tsx',
  'components/contacts/ImportMapping.tsx',
  'components/contacts/SavedViews.tsx',
  'pages/ContactDetail.tsx',
  'pages/Contacts.tsx',
  // The data namespace.
  'components/ChartPanel.tsx',
  'components/FilterBuilder.tsx',
  'components/segments/SegmentActions.tsx',
  'components/segments/SegmentMembers.tsx',
  'pages/Activity.tsx',
  'pages/Analytics.tsx',
  'pages/AuditLog.tsx',
  'pages/Events.tsx',
  'pages/SegmentEditor.tsx',
  'pages/Segments.tsx',
  // The settings namespace.
  'components/Copy.tsx',
  'components/DnsRecordsTable.tsx',
  'components/ScopedApiKeys.tsx',
  'components/TrackingDomain.tsx',
  'components/settings/BillingSection.tsx',
  'components/settings/DangerZone.tsx',
  'components/settings/ProjectSections.tsx',
  'components/twoFactor/RequireTwoFactorSwitch.tsx',
  'components/webhooks/Deliveries.tsx',
  'components/webhooks/EndpointCard.tsx',
  'pages/ApiKeys.tsx',
  'pages/Domains.tsx',
  'pages/Settings.tsx',
  'pages/Team.tsx',
  'pages/Webhooks.tsx',
  // The editor namespace.
  'components/CodeEditor.tsx',
  'components/EmailPreview.tsx',
  'components/emailEditor/BlockCanvas.tsx',
  'components/emailEditor/BlockPalette.tsx',
  'components/emailEditor/BlockSettings.tsx',
  'components/emailEditor/BlockSummary.tsx',
  'components/emailEditor/BlocksEditor.tsx',
  'components/emailEditor/BrandSettings.tsx',
  'components/emailEditor/CampaignContent.tsx',
  'components/emailEditor/ChecksPanel.tsx',
  'components/emailEditor/ContactPicker.tsx',
  'components/emailEditor/ContentEditor.tsx',
  'components/emailEditor/EditorPreview.tsx',
  'components/emailEditor/LanguageSwitcher.tsx',
  'components/emailEditor/PublishButton.tsx',
  'components/emailEditor/StarterGallery.tsx',
  'components/emailEditor/TemplateFields.tsx',
  'components/emailEditor/UploadImage.tsx',
  'components/emailEditor/VariableMenu.tsx',
  'components/emailEditor/VersionsDrawer.tsx',
  'components/emailEditor/fields.tsx',
  'components/forms/FieldsEditor.tsx',
  'components/forms/FormPreview.tsx',
  'pages/FormEditor.tsx',
  'pages/Forms.tsx',
  'pages/TemplateEditor.tsx',
  'pages/Templates.tsx',
  // The workflows and mail namespaces.
  'components/ConfirmDialog.tsx',
  'components/ListPage.tsx',
  'components/inbound/InboundMessageDialog.tsx',
  'components/notify.tsx',
  'components/suppressions/SuppressionCsv.tsx',
  'components/workflow/ConfigForm.tsx',
  'components/workflow/ExecutionTimeline.tsx',
  'components/workflow/FieldWidgets.tsx',
  'components/workflow/RawOutput.tsx',
  'components/workflow/StartFromFlow.tsx',
  'components/workflow/StepPanel.tsx',
  'components/workflow/TestRun.tsx',
  'components/workflow/WorkflowCanvas.tsx',
  'components/workflow/WorkflowVersions.tsx',
  'pages/Inbound.tsx',
  'pages/Suppressions.tsx',
  'pages/Topics.tsx',
  'pages/WorkflowEditor.tsx',
  'pages/WorkflowExecutions.tsx',
  'pages/Workflows.tsx',
];

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

  it('every screen not listed takes every word from the catalogues', () => {
    const skipped = new Set([...EXEMPT, ...NOT_YET]);
    const found = allScreens()
      .filter((file) => !skipped.has(file))
      .flatMap((file) => untranslated(fs.readFileSync(path.join(WEB, file), 'utf8'), file));
    expect(found).toEqual([]);
  });

  it('the lists name files that exist', () => {
    const all = new Set(allScreens());
    expect([...EXEMPT, ...NOT_YET].filter((file) => !all.has(file))).toEqual([]);
  });
});
