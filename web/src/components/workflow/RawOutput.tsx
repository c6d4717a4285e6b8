import { Anchor, Code } from '@mantine/core';
import { useState } from 'react';

/** A step's raw output, one click away from its words. */
export function RawOutput({ name, output }: { name: string; output: unknown }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Anchor component="button" type="button" size="xs" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
        {open ? 'Hide raw output' : 'Raw output'}
      </Anchor>
      {open ? (
        <Code block fz="xs" mt={4} aria-label={`Output of ${name}`}>
          {JSON.stringify(output, null, 2)}
        </Code>
      ) : null}
    </>
  );
}
