import { useState } from 'react';
import { Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useContactPicker } from '../../api/hooks/contacts';
import { useTranslation } from 'react-i18next';

/** "Preview as" (and "Test with a contact"'s "Contact"): a server-side search of the project's contacts by email (GET /contacts?search=). */
export function ContactPicker({
  projectId,
  value,
  onChange,
  label,
  description,
  placeholder,
}: {
  projectId: string;
  value: string | null;
  onChange: (id: string | null) => void;
  label?: string;
  description?: string;
  placeholder?: string;
}) {
  const { t } = useTranslation('editor');
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const [chosen, setChosen] = useState<{ value: string; label: string } | null>(null);
  const found = useContactPicker(projectId, debounced);
  const options = (found.data?.data ?? []).map((c) => ({ value: c.id, label: c.email }));
  if (chosen && !options.some((o) => o.value === chosen.value)) options.unshift(chosen);
  return (
    <Select
      label={label ?? t('contactPicker.label')}
      description={description ?? t('contactPicker.description')}
      placeholder={placeholder ?? t('contactPicker.placeholder')}
      searchable
      clearable
      data={options}
      value={value}
      searchValue={search}
      onSearchChange={setSearch}
      // The server already searched: show its answers as they are.
      filter={({ options: all }) => all}
      nothingFoundMessage={found.isFetching ? t('contactPicker.searching') : t('contactPicker.nothing')}
      onChange={(id, option) => {
        setChosen(option ?? null);
        onChange(id);
      }}
    />
  );
}
