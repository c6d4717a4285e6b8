import { Button, Group, Text } from '@mantine/core';

/** A form's submit button with the "Saved." line that follows a successful save (read by screen readers as a status). */
export function SaveButton({ label, save }: { label: string; save: { isPending: boolean; isSuccess: boolean } }) {
  return (
    <Group>
      <Button type="submit" loading={save.isPending}>
        {label}
      </Button>
      {save.isSuccess ? (
        <Text size="sm" c="green" role="status">
          Saved.
        </Text>
      ) : null}
    </Group>
  );
}
