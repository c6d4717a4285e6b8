import { useState } from 'react';
import { Button, Group, Modal, Select, Stack, TextInput } from '@mantine/core';

const LOCALE = /^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/;

/**
 * "Language": the default content and its variants by locale; the contact's `locale` field picks one
 * when sending (exact match, then the language alone, then the default). "Add language" starts a
 * variant as a copy of the default.
 */
export function LanguageSwitcher({ locales, value, onChange, onAdd }: { locales: string[]; value: string; onChange(locale: string): void; onAdd(locale: string): void }) {
  const [adding, setAdding] = useState(false);
  const [locale, setLocale] = useState('');
  const problem = locale && !LOCALE.test(locale) ? 'A language code like fr, de or pt-BR' : locales.includes(locale) ? 'This language is there already' : undefined;
  return (
    <Group gap="xs" align="flex-end">
      <Select
        label="Language"
        w={160}
        allowDeselect={false}
        data={[{ value: '', label: 'Default' }, ...locales.map((l) => ({ value: l, label: l }))]}
        value={value}
        onChange={(v) => onChange(v ?? '')}
      />
      <Button variant="subtle" size="xs" onClick={() => setAdding(true)} mb={4}>
        Add language
      </Button>
      <Modal opened={adding} onClose={() => setAdding(false)} title="Add a language">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (!locale || problem) return;
            onAdd(locale);
            setLocale('');
            setAdding(false);
          }}
        >
          <Stack>
            <TextInput label="Language code" description="BCP 47, like fr, de or pt-BR: contacts whose locale matches get this content" value={locale} onChange={(e) => setLocale(e.currentTarget.value.trim())} error={problem} data-autofocus />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setAdding(false)}>
                Cancel
              </Button>
              <Button type="submit" disabled={!locale || !!problem}>
                Add
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Group>
  );
}
