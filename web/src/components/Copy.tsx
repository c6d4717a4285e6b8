import { Button, CopyButton } from '@mantine/core';

/** A copy button whose accessible name says what it copies. */
export function Copy({ value, what }: { value: string; what: string }) {
  return (
    <CopyButton value={value}>
      {({ copied, copy }) => (
        <Button size="compact-xs" variant="light" color={copied ? 'teal' : 'blue'} onClick={copy} aria-label={`Copy ${what}`} style={{ flexShrink: 0 }}>
          {copied ? 'Copied' : 'Copy'}
        </Button>
      )}
    </CopyButton>
  );
}
