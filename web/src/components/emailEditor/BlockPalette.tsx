import { Button, SimpleGrid, Text } from '@mantine/core';
import { useDraggable } from '@dnd-kit/core';
import type { BlockType } from '../../api/emailEditor';
import { PALETTE } from './blocks';

export const PALETTE_PREFIX = 'palette:';

function PaletteItem({ type, label, onAdd }: { type: BlockType; label: string; onAdd(type: BlockType): void }) {
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
      aria-label={`Add ${label === 'HTML' ? 'HTML' : label.toLowerCase()} block`}
      style={{ opacity: isDragging ? 0.5 : 1, cursor: 'grab' }}
    >
      {label}
    </Button>
  );
}

/** The blocks an email is made of: click to add after the selected block, or drag onto the canvas. */
export function BlockPalette({ onAdd }: { onAdd(type: BlockType): void }) {
  return (
    <div>
      <Text size="sm" fw={600} mb={4} id="block-palette">
        Add a block
      </Text>
      <SimpleGrid cols={{ base: 3, sm: 5 }} spacing={4} role="group" aria-labelledby="block-palette">
        {PALETTE.map((p) => (
          <PaletteItem key={p.type} type={p.type} label={p.label} onAdd={onAdd} />
        ))}
      </SimpleGrid>
    </div>
  );
}
