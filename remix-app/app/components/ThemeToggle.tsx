import { useAtom } from 'jotai';
import { storeTheme, themeAtom } from '../state/theme';

export function ThemeToggle() {
  const [theme, setTheme] = useAtom(themeAtom);
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <button
      type="button"
      className="icon-button"
      aria-label={`Switch to ${next} mode`}
      title={`Switch to ${next} mode`}
      data-testid="theme-toggle"
      onClick={() => {
        setTheme(next);
        document.documentElement.setAttribute('data-theme', next);
        storeTheme(next);
      }}
    >
      <span aria-hidden="true">{theme === 'dark' ? '☀' : '☾'}</span>
    </button>
  );
}
