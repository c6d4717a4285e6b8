import { useState, type FormEvent } from 'react';
import { ActionIcon, Alert, Anchor, Button, Group, Modal, Select, Stack, Switch, Text, TextInput } from '@mantine/core';
import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ApiError } from '../../api/client';
import { AlreadyAContact, useAddContact } from '../../api/hooks/contacts';
import { parseFieldValue, VALUE_TYPES, type ValueType } from '../../api/contactFields';
import { ErrorState } from '../States';

interface FieldRow {
  /** React's key for the row (rows are removed from the middle). */
  id: number;
  key: string;
  type: ValueType;
  value: string;
}
let nextRowId = 0;
const emptyRow = (): FieldRow => ({ id: nextRowId++, key: '', type: 'text', value: '' });

/**
 * POST /contacts answers a bad value with the spec's flat `{ error }` sentence, prefixed by the field it
 * is about ("email: Invalid email address", "data.plan: …"): the sentence goes under that input, and
 * only one naming no input shows as an alert.
 */
export function flatFieldOf(error: unknown): { field: string; message: string } | null {
  if (!(error instanceof ApiError)) return null;
  const m = /^(email|subscribed|data\.[^:]+): (.+)$/s.exec(error.message);
  return m ? { field: m[1], message: m[2].charAt(0).toUpperCase() + m[2].slice(1) } : null;
}

/**
 * "Add contact": email, subscribed and custom fields as key/value rows, created with POST /contacts.
 * An address that is already a contact's is not overwritten: the dialog links to its page instead.
 */
export function AddContact({ projectId, onAdded }: { projectId: string; onAdded?: (email: string) => void }) {
  const { t } = useTranslation('contacts');
  const [opened, setOpened] = useState(false);
  const [email, setEmail] = useState('');
  const [subscribed, setSubscribed] = useState(true);
  const [rows, setRows] = useState<FieldRow[]>([]);
  // Problems found before sending (a value that is not of its type), by row.
  const [problems, setProblems] = useState<Record<number, string>>({});
  const add = useAddContact(projectId, {
    meta: { success: t('add.added'), failure: false },
    onSuccess: (_contact, added) => {
      close();
      onAdded?.(added.email);
    },
  });
  function close() {
    setOpened(false);
    setEmail('');
    setSubscribed(true);
    setRows([]);
    setProblems({});
    add.reset();
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const data: Record<string, unknown> = {};
    const found: Record<number, string> = {};
    rows.forEach((r, i) => {
      if (!r.key.trim() && !r.value) return; // an untouched row is left out
      const parsed = parseFieldValue(r.type, r.value);
      if (!r.key.trim()) found[i] = t('add.nameTheField');
      else if (parsed.problem) found[i] = t(`valueProblem.${parsed.problem}`, { reason: parsed.reason });
      else data[r.key.trim()] = parsed.value;
    });
    setProblems(found);
    if (!Object.keys(found).length) add.mutate({ email: email.trim(), subscribed, data });
  };
  const onField = flatFieldOf(add.error);
  // The custom field a `data.<key>…` sentence is about.
  const dataKey = onField?.field.startsWith('data.') ? onField.field.slice(5).split('.')[0] : null;
  const shownOnInput = onField?.field === 'email' || (dataKey !== null && rows.some((r) => r.key.trim() === dataKey));
  const set = (i: number, patch: Partial<FieldRow>) => setRows((rs) => rs.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <>
      <Button onClick={() => setOpened(true)}>{t('add.button')}</Button>
      <Modal opened={opened} onClose={close} title={t('add.title')} closeButtonProps={{ 'aria-label': t('close') }} size="lg">
        <form onSubmit={submit} noValidate>
          <Stack>
            <TextInput
              label={t('email')}
              type="email"
              required
              data-autofocus
              value={email}
              onChange={(e) => setEmail(e.currentTarget.value)}
              error={onField?.field === 'email' ? onField.message : undefined}
            />
            <Switch
              label={t('subscribed')}
              description={t('receivesMarketing')}
              checked={subscribed}
              onChange={(e) => setSubscribed(e.currentTarget.checked)}
            />
            <Stack gap="xs" aria-label={t('add.fields')} role="group">
              <Text size="sm" fw={500}>
                {t('add.fields')}
              </Text>
              {rows.length ? null : (
                <Text size="xs" c="dimmed">
                  {t('add.fieldsHint')}
                </Text>
              )}
              {rows.map((r, i) => {
                const apiProblem = dataKey !== null && dataKey === r.key.trim() ? onField?.message : undefined;
                return (
                  <Group key={r.id} align="flex-start" wrap="nowrap" gap="xs">
                    <TextInput
                      label={t('add.fieldName', { n: i + 1 })}
                      placeholder={t('add.fieldNamePlaceholder')}
                      value={r.key}
                      onChange={(e) => set(i, { key: e.currentTarget.value })}
                      error={apiProblem}
                      style={{ flex: 1 }}
                    />
                    <Select
                      label={t('add.fieldType', { n: i + 1 })}
                      data={VALUE_TYPES.map((value) => ({ value, label: t(`valueType.${value}`) }))}
                      value={r.type}
                      onChange={(v) => v && set(i, { type: v as ValueType })}
                      allowDeselect={false}
                      w={150}
                    />
                    <TextInput
                      label={t('add.fieldValue', { n: i + 1 })}
                      value={r.value}
                      onChange={(e) => set(i, { value: e.currentTarget.value })}
                      error={problems[i]}
                      style={{ flex: 1 }}
                    />
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      mt={28}
                      aria-label={t('add.removeField', { n: i + 1 })}
                      onClick={() => {
                        setRows((rs) => rs.filter((_, j) => j !== i));
                        setProblems({});
                      }}
                    >
                      ×
                    </ActionIcon>
                  </Group>
                );
              })}
              <Group>
                <Button size="xs" variant="light" onClick={() => setRows((rs) => [...rs, emptyRow()])}>
                  {t('add.addField')}
                </Button>
              </Group>
            </Stack>
            {add.error instanceof AlreadyAContact ? (
              <Alert color="yellow" title={t('add.already')} role="alert">
                <Trans
                  t={t}
                  i18nKey="add.alreadyBody"
                  values={{ email: email.trim() }}
                  components={{ anchor: <Anchor component={Link} to={`/p/${projectId}/contacts/${add.error.contactId}`} onClick={close} /> }}
                />
              </Alert>
            ) : add.error && !shownOnInput ? (
              <ErrorState error={add.error} title={t('add.notAdded')} />
            ) : null}
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                {t('cancel')}
              </Button>
              <Button type="submit" loading={add.isPending}>
                {t('add.create')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
