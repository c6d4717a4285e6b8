import { useState, type FormEvent } from 'react';
import { Button, Code, Group, Image, Stack, Text, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, unwrap } from '../../api/client';
import { ErrorState } from '../States';
import { Copy } from '../Copy';
import { useTranslation } from 'react-i18next';

/**
 * Turning 2FA on: "Enable two-factor authentication" asks the server for a new secret and its QR
 * code; the first code from the app confirms it, and the server answers the recovery codes.
 */
export function Enrolment({ onEnabled }: { onEnabled: (recoveryCodes: string[]) => void }) {
  const { t } = useTranslation('account');
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
        <Text>{t('twoFactor.intro')}</Text>
        {setup.error ? <ErrorState error={setup.error} title={t('twoFactor.couldNotStart')} /> : null}
        <Button onClick={() => setup.mutate()} loading={setup.isPending} w="fit-content">
          {t('twoFactor.enable')}
        </Button>
      </Stack>
    );
  }
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Text>{t('twoFactor.scan')}</Text>
        <Image src={setup.data.qrCode} alt={t('twoFactor.qrAlt')} w={200} h={200} fit="contain" />
        <Text size="sm">{t('twoFactor.orType')}</Text>
        <Group gap="xs" wrap="nowrap">
          <Code fz="md" data-testid="two-factor-secret" style={{ wordBreak: 'break-all' }}>
            {setup.data.secret}
          </Code>
          <Copy value={setup.data.secret} what="secret" />
        </Group>
        <Text>{t('twoFactor.enterCode')}</Text>
        <TextInput
          label={t('secondFactor.code')}
          inputMode="numeric"
          autoComplete="one-time-code"
          required
          value={code}
          onChange={(e) => setCode(e.currentTarget.value)}
          error={fieldError(enable.error, 'code')}
          maw={220}
        />
        {enable.error && !hasFieldErrors(enable.error) ? <ErrorState error={enable.error} title={t('twoFactor.notEnabled')} /> : null}
        <Button type="submit" loading={enable.isPending} disabled={!code.trim()} w="fit-content">
          {t('secondFactor.verify')}
        </Button>
      </Stack>
    </form>
  );
}
