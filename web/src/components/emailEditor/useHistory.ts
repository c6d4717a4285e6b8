import { useRef, useState } from 'react';

const LIMIT = 100;

/**
 * "Undo"/"Redo" for a value the parent holds (the block document): a stack of its earlier values.
 * Changes with the same `mergeKey` in a row (typing into one field) are one step, so Undo takes back
 * the whole edit of a field instead of one character.
 */
export function useHistory<T>(value: T, onChange: (value: T) => void) {
  const [past, setPast] = useState<T[]>([]);
  const [future, setFuture] = useState<T[]>([]);
  const lastKey = useRef<string | null>(null);

  const commit = (next: T, mergeKey?: string) => {
    if (!mergeKey || mergeKey !== lastKey.current) setPast((p) => [...p.slice(-LIMIT + 1), value]);
    lastKey.current = mergeKey ?? null;
    setFuture([]);
    onChange(next);
  };
  const undo = () => {
    const previous = past[past.length - 1];
    if (previous === undefined) return;
    setPast(past.slice(0, -1));
    setFuture([value, ...future]);
    lastKey.current = null;
    onChange(previous);
  };
  const redo = () => {
    const [next, ...rest] = future;
    if (next === undefined) return;
    setFuture(rest);
    setPast([...past, value]);
    lastKey.current = null;
    onChange(next);
  };
  return { commit, undo, redo, canUndo: past.length > 0, canRedo: future.length > 0 };
}
