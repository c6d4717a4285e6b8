import { ActionIcon, Button, Group, Menu, Paper, SimpleGrid, Stack, Text, UnstyledButton } from '@mantine/core';
import { useDroppable } from '@dnd-kit/core';
import { SortableContext, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import type { Block, EmailDocument, LeafBlock } from '../../api/emailEditor';
import { BlockSummary } from './BlockSummary';
import { newBlock, PALETTE } from './blocks';
import { useTranslation } from 'react-i18next';

export const CANVAS_ID = 'canvas';

interface CanvasProps {
  document: EmailDocument;
  selected: string | null;
  onSelect(id: string | null): void;
  onMove(id: string, by: -1 | 1): void;
  onDelete(id: string): void;
  onAddToColumn(columnsId: string, column: number, block: LeafBlock): void;
  /** The ids of blocks a check is about, marked on the canvas. */
  flagged: Set<string>;
}

/** The selected block's keyboard tools: the way to reorder without dragging. */
function BlockTools({ id, onMove, onDelete }: Pick<CanvasProps, 'onMove' | 'onDelete'> & { id: string }) {
  const { t } = useTranslation('editor');
  return (
    <Group gap={4} onClick={(e) => e.stopPropagation()}>
      <Button size="compact-xs" variant="default" onClick={() => onMove(id, -1)}>
        {t('canvas.moveUp')}
      </Button>
      <Button size="compact-xs" variant="default" onClick={() => onMove(id, 1)}>
        {t('canvas.moveDown')}
      </Button>
      <Button size="compact-xs" variant="light" color="red" onClick={() => onDelete(id)}>
        {t('canvas.deleteBlock')}
      </Button>
    </Group>
  );
}

/** A block's selectable card: its name as a button (keyboard and screen readers), its look below. */
function BlockCard({ block, props, handle }: { block: Block; props: CanvasProps; handle?: React.ReactNode }) {
  const { t } = useTranslation('editor');
  const isSelected = props.selected === block.id;
  return (
    <Paper
      withBorder
      p="xs"
      data-block-id={block.id}
      onClick={(e) => {
        e.stopPropagation();
        props.onSelect(block.id);
      }}
      style={{
        cursor: 'pointer',
        borderColor: isSelected ? 'var(--mantine-primary-color-filled)' : props.flagged.has(block.id) ? 'var(--mantine-color-orange-6)' : undefined,
        borderWidth: isSelected ? 2 : 1,
      }}
    >
      <Stack gap={6}>
        <Group justify="space-between" gap="xs" wrap="nowrap">
          <Group gap={6} wrap="nowrap">
            {handle}
            <UnstyledButton data-block-name aria-pressed={isSelected} onClick={() => props.onSelect(block.id)} fz="xs" fw={600}>
              {t('blocks.block', { name: t(`blocks.name.${block.type}`) })}
            </UnstyledButton>
          </Group>
          {isSelected ? <BlockTools id={block.id} onMove={props.onMove} onDelete={props.onDelete} /> : null}
        </Group>
        {block.type === 'columns' ? (
          <SimpleGrid cols={block.columns.length} spacing="xs">
            {block.columns.map((column, ci) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: columns have no id; their place is who they are
              <Stack key={ci} gap={4} p={4} style={{ border: '1px dashed var(--mantine-color-default-border)', borderRadius: 4 }}>
                {column.blocks.map((inner) => (
                  <BlockCard key={inner.id} block={inner} props={props} />
                ))}
                <Menu position="bottom-start">
                  <Menu.Target>
                    <Button size="compact-xs" variant="subtle" onClick={(e) => e.stopPropagation()}>
                      {t('canvas.addToColumn', { number: ci + 1 })}
                    </Button>
                  </Menu.Target>
                  <Menu.Dropdown>
                    {PALETTE.filter((type) => type !== 'columns').map((type) => (
                      <Menu.Item key={type} onClick={() => props.onAddToColumn(block.id, ci, newBlock(type) as LeafBlock)}>
                        {t(`blocks.name.${type}`)}
                      </Menu.Item>
                    ))}
                  </Menu.Dropdown>
                </Menu>
              </Stack>
            ))}
          </SimpleGrid>
        ) : (
          <BlockSummary block={block} />
        )}
      </Stack>
    </Paper>
  );
}

function SortableBlock({ block, props }: { block: Block; props: CanvasProps }) {
  const { t } = useTranslation('editor');
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({ id: block.id });
  const handle = (
    <ActionIcon
      ref={setActivatorNodeRef}
      size="sm"
      variant="subtle"
      color="gray"
      aria-label={t('canvas.drag', { name: t(`blocks.inSentence.${block.type}`) })}
      {...attributes}
      {...listeners}
      style={{ cursor: 'grab' }}
    >
      ⠿
    </ActionIcon>
  );
  return (
    <div ref={setNodeRef} style={{ transform: CSS.Transform.toString(transform), transition, opacity: isDragging ? 0.5 : 1 }}>
      <BlockCard block={block} props={props} handle={handle} />
    </div>
  );
}

/**
 * The email's blocks in order: drag a palette item onto it to add, drag a block's handle to reorder,
 * click a block to edit it. Nested column blocks are selected and edited the same way.
 */
export function BlockCanvas(props: CanvasProps) {
  const { t } = useTranslation('editor');
  const { setNodeRef, isOver } = useDroppable({ id: CANVAS_ID });
  return (
    <Stack
      ref={setNodeRef}
      gap="xs"
      p="xs"
      aria-label={t('canvas.region')}
      role="region"
      mih={200}
      style={{
        background: isOver ? 'var(--mantine-color-default-hover)' : 'var(--mantine-color-body)',
        border: '1px solid var(--mantine-color-default-border)',
        borderRadius: 4,
      }}
      onClick={() => props.onSelect(null)}
    >
      <SortableContext items={props.document.blocks.map((b) => b.id)} strategy={verticalListSortingStrategy}>
        {props.document.blocks.map((b) => (
          <SortableBlock key={b.id} block={b} props={props} />
        ))}
      </SortableContext>
      {props.document.blocks.length === 0 ? (
        <Text size="sm" c="dimmed" ta="center" py="xl">
          {t('canvas.empty')}
        </Text>
      ) : null}
    </Stack>
  );
}
