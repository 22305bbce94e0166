/** Row virtualization shared by the pivot tables: only the rows in view are rendered. */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';

export function useRowWindow(count: number, rowHeight: number) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 10,
    initialRect: { width: 800, height: 360 },
  });
  const items = virtualizer.getVirtualItems();
  const padTop = items.length ? items[0]!.start : 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1]!.end : 0;
  return { scrollRef, items, padTop, padBottom };
}
