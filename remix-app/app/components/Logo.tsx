/** The Cairn mark: three stacked stones. */
export function Logo({ size = 22 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 24 24" aria-hidden="true" className="logo-mark">
      <ellipse cx="12" cy="19" rx="9" ry="3.2" fill="currentColor" opacity="0.55" />
      <ellipse cx="12" cy="12.6" rx="6.4" ry="2.8" fill="currentColor" opacity="0.8" />
      <ellipse cx="12" cy="6.8" rx="3.8" ry="2.3" fill="currentColor" />
    </svg>
  );
}
