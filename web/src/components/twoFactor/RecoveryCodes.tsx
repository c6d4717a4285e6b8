import { Alert, Button, Code, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import { Copy } from '../Copy';

/** Recovery codes, shown once: only their hashes are kept, so this is the one chance to save them. */
export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <Stack>
      <Alert color="yellow" title="Save your recovery codes">
        Each code signs you in once if you lose your authenticator app. They are shown only now: keep them somewhere safe, such as a password manager.
      </Alert>
      <SimpleGrid cols={2} spacing="xs" data-testid="recovery-codes" aria-label="Recovery codes">
        {codes.map((c) => (
          <Code key={c} fz="md">
            {c}
          </Code>
        ))}
      </SimpleGrid>
      <Group>
        <Copy value={codes.join('\n')} what="recovery codes" />
        <Text size="sm" c="dimmed">
          {codes.length} codes
        </Text>
      </Group>
      <Button onClick={onDone} w="fit-content">
        I have saved my recovery codes
      </Button>
    </Stack>
  );
}
