/**
 * A step type's `icon` name (GET /workflows/step-types) as a glyph. Names the dashboard does not
 * know (a plugin's) show the generic one: no step type is named here, only icon names.
 */
const GLYPHS: Record<string, string> = {
  bolt: '⚡',
  mail: '✉',
  clock: '⏱',
  hourglass: '⏳',
  calendar: '📅',
  split: '⑂',
  'arrows-split': '⇶',
  webhook: '↗',
  'user-edit': '✎',
  stop: '■',
};

export function StepIcon({ name }: { name: string | undefined }) {
  return (
    <span aria-hidden="true" data-icon={name && GLYPHS[name] ? name : 'generic'} style={{ display: 'inline-block', width: '1.2em', textAlign: 'center' }}>
      {(name && GLYPHS[name]) ?? '●'}
    </span>
  );
}
