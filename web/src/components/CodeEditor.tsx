import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { Input, Skeleton, Textarea } from '@mantine/core';
import type { EditorView } from '@codemirror/view';
import { useTranslation } from 'react-i18next';

type Module = typeof import('./htmlEditor');

/**
 * An HTML/Liquid code editor (CodeMirror 6) with a visible label, description and error, like
 * Mantine's inputs. CodeMirror is fetched by a dynamic import when the field first renders, so it
 * is in a chunk of its own and never weighs on the first screen. The editable element carries the
 * label's id (aria-labelledby), the description and error (aria-describedby) and the field's id, so
 * `<label for>` names it. If the chunk cannot be loaded, a plain textarea takes its place.
 */
export function CodeEditor(props: {
  label: string;
  description?: ReactNode;
  error?: ReactNode;
  required?: boolean;
  value: string;
  onChange(value: string): void;
}) {
  const { t } = useTranslation('editor');
  const id = useId();
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const mod = useRef<Module | null>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');
  // The latest onChange, for the editor's listener made once.
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;

  // The ids of the wrapper's label, description and error, which the editable element points to.
  const labelId = `${id}-label`;
  const descriptionId = `${id}-description`;
  const errorId = `${id}-error`;
  const attributes: Record<string, string> = {
    id,
    'aria-labelledby': labelId,
    ...(props.description || props.error
      ? { 'aria-describedby': [props.description ? descriptionId : '', props.error ? errorId : ''].filter(Boolean).join(' ') }
      : {}),
    ...(props.error ? { 'aria-invalid': 'true' } : {}),
    ...(props.required ? { 'aria-required': 'true' } : {}),
  };

  useEffect(() => {
    let gone = false;
    import('./htmlEditor').then(
      (m) => {
        if (gone || !host.current) return;
        mod.current = m;
        view.current = m.createHtmlEditor({ parent: host.current, value: props.value, onChange: (v) => onChange.current(v), attributes });
        setState('ready');
      },
      () => !gone && setState('failed'),
    );
    return () => {
      gone = true;
      view.current?.destroy();
      view.current = null;
    };
    // Made once; value and attributes follow in the effects below.
  }, []);

  // A value changed from outside (the template loaded, a reset) replaces the document.
  useEffect(() => {
    if (view.current && mod.current) mod.current.setHtmlEditorValue(view.current, props.value);
  }, [props.value]);

  // aria-invalid and aria-describedby follow the error.
  const attributeKey = JSON.stringify(attributes);
  useEffect(() => {
    const content = view.current?.contentDOM;
    if (!content) return;
    for (const name of ['aria-describedby', 'aria-invalid', 'aria-required']) {
      if (attributes[name]) content.setAttribute(name, attributes[name]);
      else content.removeAttribute(name);
    }
  }, [attributeKey, state]);

  if (state === 'failed') {
    return (
      <Textarea
        label={props.label}
        description={props.description}
        error={props.error}
        required={props.required}
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value)}
        autosize
        minRows={10}
        maxRows={28}
        spellCheck={false}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontSize: 13 } }}
      />
    );
  }
  return (
    <Input.Wrapper
      id={id}
      label={props.label}
      description={props.description}
      error={props.error}
      required={props.required}
      labelProps={{ id: labelId, htmlFor: id }}
      descriptionProps={{ id: descriptionId }}
      errorProps={{ id: errorId }}
    >
      {state === 'loading' ? <Skeleton height={240} aria-label={t('codeEditor.loading', { label: props.label })} /> : null}
      <div ref={host} data-testid="code-editor" />
    </Input.Wrapper>
  );
}
