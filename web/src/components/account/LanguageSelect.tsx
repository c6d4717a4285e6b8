import { Select } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, unwrap, type User } from '../../api/client';
import { keys } from '../../api/queryKeys';
import { LANGUAGES, type Language } from '../../i18n';
import { ErrorState } from '../States';

/** The value of "Browser language": users.locale null. */
const AUTO = 'auto';

/**
 * "Language": the dashboard's language for this person, on every device (users.locale), saved as
 * soon as it is chosen; "Browser language" follows the browser's setting. AppFrame applies it.
 */
export function LanguageSelect({ user }: { user: User }) {
  const { t } = useTranslation(['account', 'common']);
  const qc = useQueryClient();
  const save = useMutation({
    mutationFn: (locale: Language | null) => unwrap(api.PATCH('/users/@me', { body: { locale } })),
    onSuccess: (me) => qc.setQueryData(keys.me(), me),
  });
  return (
    <>
      <Select
        label={t('common:language')}
        description={t('profile.languageHint')}
        data={[{ value: AUTO, label: t('common:languageAuto') }, ...LANGUAGES.map((l) => ({ value: l, label: t(`common:languages.${l}`) }))]}
        value={user.locale ?? AUTO}
        allowDeselect={false}
        disabled={save.isPending}
        onChange={(v) => v && save.mutate(v === AUTO ? null : (v as Language))}
        w={320}
      />
      {save.error ? <ErrorState error={save.error} title={t('profile.notSaved')} /> : null}
    </>
  );
}
