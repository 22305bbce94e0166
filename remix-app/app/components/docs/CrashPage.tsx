/** "This page crashed." with the message chain (error, its cause, the cause's cause…) and Try again. */
function errorChain(error: unknown): string[] {
  const chain: string[] = [];
  let e: unknown = error;
  while (e !== undefined && e !== null && chain.length < 10) {
    chain.push(e instanceof Error ? e.message : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return chain;
}

export function CrashPage({ error, tryAgain }: { error: unknown; tryAgain: () => void }) {
  const [message, ...causes] = errorChain(error);
  return (
    <div className="crash-page" data-testid="crash-page">
      <h1>This page crashed.</h1>
      <button type="button" className="button button--primary" onClick={tryAgain}>
        Try again
      </button>
      <div className="crash-page__error" role="alert">
        <p className="crash-page__message">{message}</p>
        {causes.map((c, i) => (
          <p key={i} className="crash-page__cause">
            <span className="crash-page__cause-label">Cause: </span>
            {c}
          </p>
        ))}
      </div>
    </div>
  );
}

/** A failed fetch of the page's data (offline, server gone) rather than a bug in the page. */
export function isLoadFailure(error: unknown): boolean {
  return error instanceof TypeError && /fetch|network|load failed/i.test(error.message);
}

/** The page could not be loaded: the error text and Retry. */
export function LoadFailure({ error, retry }: { error: unknown; retry: () => void }) {
  return (
    <div className="crash-page" data-testid="load-failure">
      <h1>This page could not be loaded.</h1>
      <p className="crash-page__error" role="alert">
        {error instanceof Error ? error.message : String(error)}
      </p>
      <button type="button" className="button button--primary" onClick={retry}>
        Retry
      </button>
    </div>
  );
}
