import { type FormEvent } from 'react';
import { Button, Group, Stack, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { api, fieldError, hasFieldErrors, unwrap } from '../../api/client';
import type { TwoFactorStatus } from '../../api/twoFactor';
import { ErrorState } from '../States';
import { SecondFactorFields, useSecondFactor } from './SecondFactorFields';
import { useTranslation } from 'react-i18next';
import { dayWords } from '../../api/dates';

/** 2FA is on: new recovery codes or turning it off, each proven with a current code (or a recovery code). */
export function Enabled({ status, onNewCodes, onDisabled }: { status: TwoFactorStatus; onNewCodes: (codes: string[]) => void; onDisabled: () => void }) {
  const { t } = useTranslation('account');
  const state = useSecondFactor();
  const renew = useMutation({
    mutationFn: () => unwrap(api.POST('/users/@me/two-factor/recovery-codes', { body: state.factor })),
    onSuccess: (r) => onNewCodes(r.recoveryCodes),
  });
  const disable = useMutation({
    meta: { success: 'Two-factor authentication turned off' },
    mutationFn: () => unwrap(api.POST('/users/@me/two-factor/disable', { body: state.factor })),
    onSuccess: onDisabled,
  });
  const error = renew.error ?? disable.error;
  const field = state.recovery ? 'recoveryCode' : 'code';
  const submit = (e: FormEvent) => e.preventDefault();
  return (
    <form onSubmit={submit} noValidate>
      <Stack>
        <Text role="status">
          {status.enabledAt
            ? t('twoFactor.isOnSince', { since: dayWords(status.enabledAt), left: status.recoveryCodesLeft })
            : t('twoFactor.isOn', { left: status.recoveryCodesLeft })}
        </Text>
        <Text size="sm" c="dimmed">
          {t('twoFactor.prove')}
        </Text>
        <SecondFactorFields state={state} error={fieldError(error, field)} />
        {error && !hasFieldErrors(error) ? <ErrorState error={error} /> : null}
        <Group>
          <Button variant="default" disabled={!state.filled} loading={renew.isPending} onClick={() => renew.mutate()}>
            {t('twoFactor.newCodes')}
          </Button>
          <Button color="red" variant="light" disabled={!state.filled} loading={disable.isPending} onClick={() => disable.mutate()}>
            {t('twoFactor.disable')}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
