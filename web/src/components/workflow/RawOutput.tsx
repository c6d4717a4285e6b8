import { Anchor, Code } from '@mantine/core';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

/** A step's raw output, one click away from its words. */
export function RawOutput({ name, output }: { name: string; output: unknown }) {
  const { t } = useTranslation('workflows');
  const [open, setOpen] = useState(false);
  return (
    <>
      <Anchor component="button" type="button" size="xs" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
        {open ? t('timeline.hideRawOutput') : t('timeline.rawOutput')}
      </Anchor>
      {open ? (
        <Code block fz="xs" mt={4} aria-label={t('timeline.outputOf', { name })}>
          {JSON.stringify(output, null, 2)}
        </Code>
      ) : null}
    </>
  );
}
