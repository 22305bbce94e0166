/** A QR code as inline SVG, made in the page from `text` (lib/qr.ts); nothing is fetched. */
import { useMemo } from 'react';
import { qrModules, qrPath } from '../../lib/qr';

/** Quiet zone around the code, in modules (the QR standard asks for four). */
const QUIET = 4;

export function QrCode({ text, label, size = 200, testId }: { text: string; label: string; size?: number; testId?: string }) {
  const modules = useMemo(() => qrModules(text), [text]);
  const n = modules.length + QUIET * 2;
  return (
    <svg
      className="qr-code"
      role="img"
      aria-label={label}
      width={size}
      height={size}
      viewBox={`${-QUIET} ${-QUIET} ${n} ${n}`}
      shapeRendering="crispEdges"
      data-testid={testId}
      data-modules={modules.length}
    >
      <rect x={-QUIET} y={-QUIET} width={n} height={n} fill="#fff" />
      <path d={qrPath(modules)} fill="#000" />
    </svg>
  );
}
