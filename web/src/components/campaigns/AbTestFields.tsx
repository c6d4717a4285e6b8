import { Button, Group, NumberInput, Select, SimpleGrid, Stack, Switch, Text, TextInput } from '@mantine/core';
import { fieldError } from '../../api/client';
import { DURATION_UNITS, type CampaignDraft, type DurationUnit } from '../../api/campaigns';
import { useTranslation } from 'react-i18next';

/** "A/B test the subject": up to four more subjects, the test group's share, and when and by what the winner is picked. */
export function AbTestFields({ draft, set, errors }: { draft: CampaignDraft; set: (p: Partial<CampaignDraft>) => void; errors: unknown }) {
  const { t } = useTranslation('campaigns');
  const ab = draft.ab;
  const setAb = (p: Partial<CampaignDraft['ab']>) => set({ ab: { ...ab, ...p } });
  return (
    <Stack gap="xs">
      <Switch label={t('abTest.toggle')} checked={ab.on} onChange={(e) => setAb({ on: e.currentTarget.checked })} />
      {ab.on ? (
        <>
          <Text size="sm" c="dimmed">
            {t('abTest.intro')}
          </Text>
          {ab.subjects.map((s, i) => (
            <Group key={i} gap="xs" align="flex-end" wrap="nowrap">
              <TextInput
                label={t('abTest.subject', { letter: String.fromCharCode(66 + i) })}
                value={s}
                onChange={(e) => {
                  const value = e.currentTarget.value;
                  setAb({ subjects: ab.subjects.map((x, j) => (j === i ? value : x)) });
                }}
                error={fieldError(errors, `abTest.subjects.${i + 1}`)}
                style={{ flex: 1 }}
              />
              {ab.subjects.length > 1 ? (
                <Button
                  variant="subtle"
                  color="red"
                  onClick={() => setAb({ subjects: ab.subjects.filter((_, j) => j !== i) })}
                  aria-label={t('abTest.removeSubject', { letter: String.fromCharCode(66 + i) })}
                >
                  {t('abTest.remove')}
                </Button>
              ) : null}
            </Group>
          ))}
          {ab.subjects.length < 4 ? (
            <Group>
              <Button size="xs" variant="light" onClick={() => setAb({ subjects: [...ab.subjects, ''] })}>
                {t('abTest.addSubject')}
              </Button>
            </Group>
          ) : null}
          {fieldError(errors, 'abTest.subjects') ? (
            <Text size="sm" c="red" role="alert">
              {fieldError(errors, 'abTest.subjects')}
            </Text>
          ) : null}
          <SimpleGrid cols={{ base: 1, sm: 4 }} spacing="xs">
            <NumberInput
              label={t('abTest.testGroup')}
              min={1}
              max={50}
              value={ab.testPercent}
              onChange={(v) => setAb({ testPercent: String(v) })}
              error={fieldError(errors, 'abTest.testPercent')}
            />
            <NumberInput
              label={t('abTest.winnerAfter')}
              min={1}
              value={ab.amount}
              onChange={(v) => setAb({ amount: String(v) })}
              error={fieldError(errors, 'abTest.winnerAfter.amount') ?? fieldError(errors, 'abTest.winnerAfter')}
            />
            <Select
              label={t('abTest.unit')}
              data={DURATION_UNITS.map((u) => ({ value: u, label: t(`abTest.units.${u}`) }))}
              value={ab.unit}
              onChange={(v) => v && setAb({ unit: v as DurationUnit })}
              allowDeselect={false}
            />
            <Select
              label={t('abTest.metric')}
              data={[
                { value: 'opens', label: t('abTest.opens') },
                { value: 'clicks', label: t('abTest.clicks') },
              ]}
              value={ab.metric}
              onChange={(v) => v && setAb({ metric: v as CampaignDraft['ab']['metric'] })}
              allowDeselect={false}
            />
          </SimpleGrid>
        </>
      ) : null}
    </Stack>
  );
}
