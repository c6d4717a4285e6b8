import { Button, Grid, Group, Stack } from '@mantine/core';
import { DndContext, KeyboardSensor, PointerSensor, closestCenter, useSensor, useSensors, type DragEndEvent } from '@dnd-kit/core';
import { sortableKeyboardCoordinates } from '@dnd-kit/sortable';
import type { Block, BlockType, EmailDocument } from '../../api/emailEditor';
import { BlockCanvas, CANVAS_ID } from './BlockCanvas';
import { BlockPalette, PALETTE_PREFIX } from './BlockPalette';
import { BlockSettings } from './BlockSettings';
import { addToColumn, findBlock, insertBlock, moveBlock, moveTo, newBlock, removeBlock, updateBlock } from './blocks';
import { useHistory } from './useHistory';
import { useTranslation } from 'react-i18next';
import { useStarterWords } from './useStarterWords';

interface Props {
  projectId: string;
  document: EmailDocument;
  onChange(document: EmailDocument): void;
  selected: string | null;
  onSelect(id: string | null): void;
  flagged: Set<string>;
}

/**
 * "Blocks": the palette, the canvas and the selected block's settings, with "Undo"/"Redo" over the
 * whole document. Dragging uses @dnd-kit (pointer, and the keyboard on a block's handle); "Move up" and
 * "Move down" on the selected block do the same without dragging.
 */
export function BlocksEditor({ projectId, document: doc, onChange, selected, onSelect, flagged }: Props) {
  const { t } = useTranslation('editor');
  const { block: blockWords } = useStarterWords();
  const history = useHistory(doc, onChange);
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 6 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );

  const add = (type: BlockType, index?: number) => {
    const block = newBlock(type, blockWords);
    history.commit(insertBlock(doc, block, index === undefined ? { afterId: selected } : { index }));
    onSelect(block.id);
  };
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over) return;
    const id = String(active.id);
    if (id.startsWith(PALETTE_PREFIX)) {
      const at = doc.blocks.findIndex((b) => b.id === over.id);
      add(id.slice(PALETTE_PREFIX.length) as BlockType, over.id === CANVAS_ID || at < 0 ? doc.blocks.length : at);
    } else if (over.id !== CANVAS_ID) {
      history.commit(moveTo(doc, id, String(over.id)));
    }
  };
  const remove = (id: string) => {
    history.commit(removeBlock(doc, id));
    onSelect(null);
  };
  const change = (id: string, patch: Partial<Block>, field: string) => history.commit(updateBlock(doc, id, patch), `${id}:${field}`);

  return (
    <DndContext sensors={sensors} collisionDetection={closestCenter} onDragEnd={onDragEnd}>
      <Grid gap="sm">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Stack gap="xs">
            <BlockPalette onAdd={(type) => add(type)} />
            <Group gap={4}>
              <Button size="compact-sm" variant="default" onClick={history.undo} disabled={!history.canUndo}>
                {t('canvas.undo')}
              </Button>
              <Button size="compact-sm" variant="default" onClick={history.redo} disabled={!history.canRedo}>
                {t('canvas.redo')}
              </Button>
            </Group>
            <BlockCanvas
              document={doc}
              selected={selected}
              onSelect={onSelect}
              onMove={(id, by) => history.commit(moveBlock(doc, id, by))}
              onDelete={remove}
              onAddToColumn={(columnsId, column, block) => {
                history.commit(addToColumn(doc, columnsId, column, block));
                onSelect(block.id);
              }}
              flagged={flagged}
            />
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <BlockSettings projectId={projectId} block={findBlock(doc, selected)} onChange={change} />
        </Grid.Col>
      </Grid>
    </DndContext>
  );
}
