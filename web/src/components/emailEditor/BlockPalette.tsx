import { Button, SimpleGrid, Text } from '@mantine/core';
import { useDraggable } from '@dnd-kit/core';
import type { BlockType } from '../../api/emailEditor';
import { PALETTE } from './blocks';
import { useTranslation } from 'react-i18next';

export const PALETTE_PREFIX = 'palette:';

function PaletteItem({ type, onAdd }: { type: BlockType; onAdd(type: BlockType): void }) {
  const { t } = useTranslation('editor');
  const { listeners, setNodeRef, isDragging } = useDraggable({ id: `${PALETTE_PREFIX}${type}` });
  return (
    <Button
      ref={setNodeRef}
      variant="default"
      size="xs"
      // A pointer drag places the block where it is dropped; a click or the keyboard adds it after the
      // selected one (the keyboard does not start a drag here: Enter and Space stay a click).
      onPointerDown={listeners?.onPointerDown as React.PointerEventHandler<HTMLButtonElement> | undefined}
      onClick={() => onAdd(type)}
      aria-label={t('palette.add', { name: t(`blocks.inSentence.${type}`) })}
      style={{ opacity: isDragging ? 0.5 : 1, cursor: 'grab' }}
    >
      {t(`blocks.name.${type}`)}
    </Button>
  );
}

/** The blocks an email is made of: click to add after the selected block, or drag onto the canvas. */
export function BlockPalette({ onAdd }: { onAdd(type: BlockType): void }) {
  const { t } = useTranslation('editor');
  return (
    <div>
      <Text size="sm" fw={600} mb={4} id="block-palette">
        {t('palette.heading')}
      </Text>
      <SimpleGrid cols={{ base: 3, sm: 5 }} spacing={4} role="group" aria-labelledby="block-palette">
        {PALETTE.map((type) => (
          <PaletteItem key={type} type={type} onAdd={onAdd} />
        ))}
      </SimpleGrid>
    </div>
  );
}
