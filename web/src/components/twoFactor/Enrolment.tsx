import { useState, type FormEvent } from 'react';
import { Button, Code, Group, Image, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, unwrap } from '../../api/client';
import { ErrorState } from '../States';
import { Copy } from '../Copy';

/**
 * Turning 2FA on: "Enable two-factor authentication" asks the server for a new secret and its QR
 * code; the first code from the app confirms it, and the server answers the recovery codes.
 */
export function Enrolment({ onEnabled }: { onEnabled: (recoveryCodes: string[]) => void }) {
  const [code, setCode] = useState('');
  const setup = useMutation({ mutationFn: () => unwrap(api.POST('/users/@me/two-factor/setup')) });
  const enable = useMutation({
    meta: { success: 'Two-factor authentication turned on' },
    mutationFn: () => unwrap(api.POST('/users/@me/two-factor/enable', { body: { code: code.replace(/\s+/g, '') } })),
    onSuccess: (r) => onEnabled(r.recoveryCodes),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    enable.mutate();
  };

  if (!setup.data) {
    return (
      <Stack>
        <Text>
          Two-factor authentication asks for a code from an authenticator app (such as 1Password, Google Authenticator or Aegis) each time you sign in, after
          your password.
        </Text>
        {setup.error ? <ErrorState error={setup.error} title="Could not start" /> : null}
        <Button onClick={() => setup.mutate()} loading={setup.isPending} w="fit-content">
          Enable two-factor authentication
        </Button>
      </Stack>
    );
  }
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Text>1. Scan this QR code with your authenticator app.</Text>
        <Image src={setup.data.qrCode} alt="QR code for your authenticator app" w={200} h={200} fit="contain" />
        <Text size="sm">Or type this secret into the app:</Text>
        <Group gap="xs" wrap="nowrap">
          <Code fz="md" data-testid="two-factor-secret" style={{ wordBreak: 'break-all' }}>
            {setup.data.secret}
          </Code>
          <Copy value={setup.data.secret} what="secret" />
        </Group>
        <Text>2. Enter the code the app shows.</Text>
        <TextInput
          label="Authentication code"
          inputMode="numeric"
          autoComplete="one-time-code"
          required
          value={code}
          onChange={(e) => setCode(e.currentTarget.value)}
          error={fieldError(enable.error, 'code')}
          maw={220}
        />
        {enable.error && !hasFieldErrors(enable.error) ? <ErrorState error={enable.error} title="Not enabled" /> : null}
        <Button type="submit" loading={enable.isPending} disabled={!code.trim()} w="fit-content">
          Verify
        </Button>
      </Stack>
    </form>
  );
}
