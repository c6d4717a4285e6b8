import { useState } from 'react';
import { Anchor, TextInput } from '@mantine/core';
import type { SecondFactor } from '../../api/twoFactor';
import { useTranslation } from 'react-i18next';

/**
 * The field of a second factor: "Authentication code" from the app, or — after "Use a recovery
 * code" — one of the recovery codes. The form around it owns the button and the submit.
 */
export function useSecondFactor() {
  const [recovery, setRecovery] = useState(false);
  const [value, setValue] = useState('');
  const factor: SecondFactor = recovery ? { recoveryCode: value.trim() } : { code: value.replace(/\s+/g, '') };
  return { recovery, setRecovery, value, setValue, factor, filled: value.trim().length > 0 };
}

export function SecondFactorFields({ state, error }: { state: ReturnType<typeof useSecondFactor>; error?: string }) {
  const { t } = useTranslation('account');
  const { recovery, setRecovery, value, setValue } = state;
  const toggle = () => {
    setRecovery(!recovery);
    setValue('');
  };
  return (
    <>
      {recovery ? (
        <TextInput
          key="recovery"
          label={t('secondFactor.recoveryCode')}
          description={t('secondFactor.recoveryHint')}
          autoComplete="off"
          autoFocus
          required
          value={value}
          onChange={(e) => setValue(e.currentTarget.value)}
          error={error}
        />
      ) : (
        <TextInput
          key="code"
          label={t('secondFactor.code')}
          description={t('secondFactor.codeHint')}
          inputMode="numeric"
          autoComplete="one-time-code"
          autoFocus
          required
          value={value}
          onChange={(e) => setValue(e.currentTarget.value)}
          error={error}
        />
      )}
      <Anchor component="button" type="button" size="sm" onClick={toggle} ta="left">
        {recovery ? t('secondFactor.useCode') : t('secondFactor.useRecovery')}
      </Anchor>
    </>
  );
}
