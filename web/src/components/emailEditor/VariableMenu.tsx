import { useState } from 'react';
import { Button, Popover, ScrollArea, Stack, Text, TextInput, UnstyledButton } from '@mantine/core';
import { useContactFields } from '../../api/hooks/contacts';
import { useTranslation } from 'react-i18next';

/**
 * A contact field as Liquid: `data.plan`, or `data["first name"]` for keys that are not plain names.
 * The server's `??` fills in a missing or null value (services/render.ts turns it into its `coalesce`
 * filter), so `{{ data.firstName ?? "there" }}` reads "there" for a contact without the field.
 */
export function variableOf(key: string, fallback: string): string {
  const path = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `data.${key}` : `data[${JSON.stringify(key)}]`;
  return fallback ? `{{ ${path} ?? ${JSON.stringify(fallback)} }}` : `{{ ${path} }}`;
}

/** The subscription links' variables, and their names' keys in the catalogue. */
const LINKS = [
  { name: 'unsubscribeUrl', key: 'unsubscribe' },
  { name: 'manageUrl', key: 'manage' },
] as const;

function Item({ label, hint, onClick }: { label: string; hint: string; onClick(): void }) {
  return (
    <UnstyledButton onClick={onClick} px="xs" py={4} style={{ borderRadius: 4 }} className="variable-item">
      <Text size="sm">{label}</Text>
      <Text size="xs" c="dimmed" ff="monospace">
        {hint}
      </Text>
    </UnstyledButton>
  );
}

/**
 * "Insert variable": the contact's email, the project's contact fields (GET /contacts/fields) and the
 * subscription links, inserted as Liquid with the fallback typed here.
 */
export function VariableMenu({ projectId, onInsert }: { projectId: string; onInsert(snippet: string): void }) {
  const { t } = useTranslation('editor');
  const [opened, setOpened] = useState(false);
  const [fallback, setFallback] = useState('there');
  const fields = useContactFields(projectId, { enabled: opened });
  const custom = (fields.data?.fields ?? []).filter((f) => f.isCustom).map((f) => f.field.replace(/^data\./, ''));
  const insert = (snippet: string) => {
    onInsert(snippet);
    setOpened(false);
  };
  return (
    <Popover opened={opened} onChange={setOpened} position="bottom-start" width={300} trapFocus shadow="md">
      <Popover.Target>
        <Button size="compact-xs" variant="light" onClick={() => setOpened((o) => !o)}>
          {t('variables.insert')}
        </Button>
      </Popover.Target>
      <Popover.Dropdown>
        <Stack gap={4}>
          <TextInput
            size="xs"
            label={t('variables.fallback')}
            description={t('variables.fallbackHint')}
            value={fallback}
            onChange={(e) => setFallback(e.currentTarget.value)}
          />
          <ScrollArea.Autosize mah={260}>
            <Stack gap={2} role="group" aria-label={t('variables.group')}>
              <Text size="xs" fw={600} mt={4}>
                {t('variables.contact')}
              </Text>
              <Item label={t('variables.email')} hint="{{ email }}" onClick={() => insert('{{ email }}')} />
              {custom.map((key) => (
                <Item key={key} label={key} hint={variableOf(key, fallback)} onClick={() => insert(variableOf(key, fallback))} />
              ))}
              {fields.isSuccess && custom.length === 0 ? (
                <Text size="xs" c="dimmed">
                  {t('variables.noFields')}
                </Text>
              ) : null}
              <Text size="xs" fw={600} mt={4}>
                {t('variables.subscription')}
              </Text>
              {LINKS.map((l) => (
                <Item key={l.name} label={t(`variables.${l.key}`)} hint={`{{ ${l.name} }}`} onClick={() => insert(`{{ ${l.name} }}`)} />
              ))}
            </Stack>
          </ScrollArea.Autosize>
        </Stack>
      </Popover.Dropdown>
    </Popover>
  );
}
