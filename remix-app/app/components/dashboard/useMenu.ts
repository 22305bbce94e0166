/**
 * One open menu at a time on a dashboard: the dashboard's ⋯ menu and each tile's download and ⋯ More
 * menus close on Escape, on a press outside them (lib/use-dismiss), and when another of them opens
 * (also when it is opened from the keyboard, which presses nothing outside); a menu inside another
 * (a tile's menus within its folded tools) keeps the outer one open.
 */
import { useCallback, useEffect, useId, useState, type RefObject } from 'react';
import { useDismiss } from '../../lib/use-dismiss';

const OPENED = 'cairn:menu-opened';
interface Opened {
  id: string;
  node: HTMLElement | null;
}

export function useMenu(ref: RefObject<HTMLElement | null>): { open: boolean; setOpen: (open: boolean) => void; toggle: () => void } {
  const id = useId();
  const [open, setOpenState] = useState(false);
  const setOpen = useCallback(
    (next: boolean) => {
      setOpenState(next);
      if (next) document.dispatchEvent(new CustomEvent<Opened>(OPENED, { detail: { id, node: ref.current } }));
    },
    [id, ref],
  );
  const toggle = useCallback(() => setOpen(!open), [setOpen, open]);
  useDismiss(open, ref, () => setOpenState(false));
  useEffect(() => {
    if (!open) return;
    const onOther = (e: Event) => {
      const other = (e as CustomEvent<Opened>).detail;
      // A menu inside this one (a tile's menus within its folded tools) leaves this one open.
      if (other.id !== id && !(other.node && ref.current?.contains(other.node))) setOpenState(false);
    };
    document.addEventListener(OPENED, onOther);
    return () => document.removeEventListener(OPENED, onOther);
  }, [open, id, ref]);
  return { open, setOpen, toggle };
}
