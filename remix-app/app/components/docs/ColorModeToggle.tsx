import { nextChoice, useColorMode, type ColorChoice } from './colorMode';

const NAMES: Record<ColorChoice, string> = { light: 'light mode', dark: 'dark mode', system: 'system mode' };

function Icon({ choice }: { choice: ColorChoice }) {
  if (choice === 'dark') {
    return <path d="M20 14.5A8 8 0 0 1 9.5 4a8 8 0 1 0 10.5 10.5z" fill="currentColor" />;
  }
  if (choice === 'system') {
    return (
      <g fill="none" stroke="currentColor" strokeWidth="2">
        <rect x="3" y="4" width="18" height="12" rx="2" />
        <path d="M8 20h8M12 16v4" />
      </g>
    );
  }
  return (
    <g fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
      <circle cx="12" cy="12" r="4" fill="currentColor" />
      <path d="M12 2v2M12 20v2M2 12h2M20 12h2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4" />
    </g>
  );
}

/** Cycles light → dark → system; the label says what is active and what comes next. */
export function ColorModeToggle() {
  const { choice, setChoice } = useColorMode();
  const next = nextChoice(choice);
  const label = `Switch between dark and light mode (currently ${NAMES[choice]})`;
  return (
    <button
      type="button"
      className="navbar__icon-button"
      title={label}
      aria-label={label}
      aria-live="polite"
      data-testid="color-mode-toggle"
      data-choice={choice}
      onClick={() => setChoice(next)}
    >
      <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true">
        <Icon choice={choice} />
      </svg>
    </button>
  );
}
