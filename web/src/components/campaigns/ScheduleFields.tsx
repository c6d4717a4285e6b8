import { useMemo } from 'react';
import { Group, Radio, Select, Stack, TextInput } from '@mantine/core';
import type { Schedule } from '../../api/campaigns';
import { browserZone } from '../../api/dates';
import { useTranslation } from 'react-i18next';

/** The time zones the browser knows, for the schedule's picker (UTC alone where it cannot list them). */
export const zones = () => {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return ['UTC'];
  }
};

/** "When": now, at a date and time in a chosen time zone, or at a local time in each contact's own zone. */
export function ScheduleFields({ schedule, setSchedule }: { schedule: Schedule; setSchedule: (s: Schedule) => void }) {
  const { t } = useTranslation('campaigns');
  const zoneList = useMemo(zones, []);
  const local = schedule.kind === 'now' ? '' : schedule.local;
  return (
    <Stack gap="xs">
      <Radio.Group
        label={t('schedule.when')}
        value={schedule.kind}
        onChange={(k) => setSchedule(k === 'now' ? { kind: 'now' } : k === 'at' ? { kind: 'at', local, timeZone: browserZone() } : { kind: 'local', local })}
      >
        <Group mt={4}>
          <Radio value="now" label={t('schedule.now')} />
          <Radio value="at" label={t('schedule.at')} />
          <Radio value="local" label={t('schedule.local')} />
        </Group>
      </Radio.Group>
      {schedule.kind === 'at' ? (
        <Group gap="xs" align="flex-start">
          <TextInput
            label={t('schedule.dateTime')}
            type="datetime-local"
            required
            value={schedule.local}
            onChange={(e) => setSchedule({ ...schedule, local: e.currentTarget.value })}
            w={230}
          />
          <Select
            label={t('schedule.timeZone')}
            data={zoneList}
            searchable
            value={schedule.timeZone}
            onChange={(z) => z && setSchedule({ ...schedule, timeZone: z })}
            allowDeselect={false}
            w={240}
          />
        </Group>
      ) : null}
      {schedule.kind === 'local' ? (
        <TextInput
          label={t('schedule.localDateTime')}
          description={t('schedule.localHint')}
          type="datetime-local"
          required
          value={schedule.local}
          onChange={(e) => setSchedule({ ...schedule, local: e.currentTarget.value })}
          w={320}
        />
      ) : null}
    </Stack>
  );
}
