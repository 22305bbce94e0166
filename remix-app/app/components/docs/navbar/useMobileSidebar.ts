/** Open state of the mobile menu: closes on navigation (also back/forward), Escape, and on desktop. */
import { useEffect, useState } from 'react';
import { useLocation } from 'react-router';

const DESKTOP_QUERY = '(min-width: 997px)';

export function useMobileSidebar() {
  const [open, setOpen] = useState(false);
  const location = useLocation();
  useEffect(() => setOpen(false), [location.key]);
  useEffect(() => {
    if (!open) return;
    const mq = matchMedia(DESKTOP_QUERY);
    const onChange = () => {
      if (mq.matches) setOpen(false);
    };
    mq.addEventListener('change', onChange);
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    const overflow = document.body.style.overflow;
    document.body.style.overflow = 'hidden';
    return () => {
      mq.removeEventListener('change', onChange);
      document.removeEventListener('keydown', onKey);
      document.body.style.overflow = overflow;
    };
  }, [open]);
  return { open, setOpen, toggle: () => setOpen((o) => !o) };
}
