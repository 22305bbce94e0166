/**
 * The signed-in user's session lives in the API; the app only keeps its opaque token in an HttpOnly cookie.
 * The cookie is Secure whenever the request came over https (local dev runs on plain http).
 */
const SESSION_COOKIE = 'cairn_session';
const TOKEN_SHAPE = /^[A-Za-z0-9._~+/=-]{16,512}$/;

export function readSessionToken(request: Request): string | null {
  const header = request.headers.get('Cookie');
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    let value = part.slice(eq + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      return null;
    }
    return TOKEN_SHAPE.test(value) ? value : null;
  }
  return null;
}

function attributes(request: Request): string {
  const secure = new URL(request.url).protocol === 'https:' ? '; Secure' : '';
  return `Path=/; HttpOnly; SameSite=Lax${secure}`;
}

export function sessionCookie(request: Request, token: string, expiresAt?: string | null): string {
  let maxAge = 60 * 60 * 24 * 14;
  if (expiresAt) {
    const ms = Date.parse(expiresAt) - Date.now();
    if (Number.isFinite(ms) && ms > 0) maxAge = Math.floor(ms / 1000);
  }
  return `${SESSION_COOKIE}=${encodeURIComponent(token)}; Max-Age=${maxAge}; ${attributes(request)}`;
}

export function clearSessionCookie(request: Request): string {
  return `${SESSION_COOKIE}=; Max-Age=0; ${attributes(request)}`;
}

/**
 * Only same-site paths under /app are accepted as a post-login destination (no open redirects). Control
 * characters (CR/LF, tab, NUL …) are refused: a Location header cannot carry CR/LF (the redirect threw,
 * a 500) and browsers drop tabs and newlines from URLs, which could turn the path into another one.
 */
export function safeNext(next: string | null | undefined, fallback = '/app/'): string {
  if (!next || !next.startsWith('/app') || next.startsWith('//') || next.includes('\\')) return fallback;
  if (/[\u0000-\u001f\u007f]/.test(next)) return fallback;
  if (next.startsWith('/app/login') || next.startsWith('/app/logout')) return fallback;
  return next;
}

export function loginUrl(request: Request): string {
  const url = new URL(request.url);
  const next = url.pathname + url.search;
  return `/app/login?next=${encodeURIComponent(next)}`;
}

/** The region the browser signed in to last (D53): the sign-in page offers it first. Not a secret. */
const REGION_COOKIE = 'cairn_region';

export function readRegionChoice(request: Request): 'eu' | 'us' | null {
  const m = /(?:^|;\s*)cairn_region=(eu|us)(?:;|$)/.exec(request.headers.get('Cookie') ?? '');
  return m ? (m[1] as 'eu' | 'us') : null;
}

export function regionCookie(request: Request, region: string): string {
  return `${REGION_COOKIE}=${region === 'us' ? 'us' : 'eu'}; Max-Age=${60 * 60 * 24 * 365}; ${attributes(request)}`;
}
