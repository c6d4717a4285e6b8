import { useState } from 'react';
import { Button, Group, Modal, Select, Stack, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';

const LOCALE = /^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/;

/**
 * "Language": the default content and its variants by locale; the contact's `locale` field picks one
 * when sending (exact match, then the language alone, then the default). "Add language" starts a
 * variant as a copy of the default.
 */
export function LanguageSwitcher({
  locales,
  value,
  onChange,
  onAdd,
}: {
  locales: string[];
  value: string;
  onChange(locale: string): void;
  onAdd(locale: string): void;
}) {
  const { t } = useTranslation('editor');
  const [adding, setAdding] = useState(false);
  const [locale, setLocale] = useState('');
  const problem = locale && !LOCALE.test(locale) ? t('language.badCode') : locales.includes(locale) ? t('language.taken') : undefined;
  return (
    <Group gap="xs" align="flex-end">
      <Select
        label={t('language.label')}
        w={160}
        allowDeselect={false}
        data={[{ value: '', label: t('language.default') }, ...locales.map((l) => ({ value: l, label: l }))]}
        value={value}
        onChange={(v) => onChange(v ?? '')}
      />
      <Button variant="subtle" size="xs" onClick={() => setAdding(true)} mb={4}>
        {t('language.add')}
      </Button>
      <Modal opened={adding} onClose={() => setAdding(false)} title={t('language.addHeading')}>
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
            <TextInput
              label={t('language.code')}
              description={t('language.codeHint')}
              value={locale}
              onChange={(e) => setLocale(e.currentTarget.value.trim())}
              error={problem}
              data-autofocus
            />
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setAdding(false)}>
                {t('cancel')}
              </Button>
              <Button type="submit" disabled={!locale || !!problem}>
                {t('language.submit')}
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </Group>
  );
}
