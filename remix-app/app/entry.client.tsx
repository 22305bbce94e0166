/**
 * The browser entry. The production build can run on preact/compat (CAIRN_PREACT=1, ARCHITECTURE.md D24).
 * React Router's hydrated router suspends on its first render until it has decoded the state the server
 * streamed into the page. React's root waits for that; Preact would have to resume a suspended
 * hydration at the very top of the document, which it does not do well (the frame ends up twice). So
 * with Preact, the router first renders into a detached element, only to start that decoding and catch
 * the promise it throws; the document is hydrated once the state is there.
 */
import { Component, startTransition, StrictMode, type ReactNode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { HydratedRouter } from 'react-router/dom';
import { PREACT_CLIENT } from './lib/preact-client';

/** Renders its child until it throws (a promise, here); then nothing, and calls `onThrow` with it. */
class CatchFirstThrow extends Component<{ children: ReactNode; onThrow: (thrown: unknown) => void }, { thrown: boolean }> {
  override state = { thrown: false };
  override componentDidCatch(thrown: unknown) {
    this.setState({ thrown: true });
    this.props.onThrow(thrown);
  }
  override render() {
    return this.state.thrown ? null : this.props.children;
  }
}

/** Resolves when the router's state is decoded (or its decoding failed: hydration then shows the error). */
function routerStateDecoded(): Promise<void> {
  return new Promise<void>((resolve) => {
    const scratch = createRoot(document.createElement('div'));
    const done = () => {
      scratch.unmount();
      resolve();
    };
    let thrown = false;
    scratch.render(
      <CatchFirstThrow
        onThrow={(promise) => {
          thrown = true;
          Promise.resolve(promise).then(done, done);
        }}
      >
        <HydratedRouter />
      </CatchFirstThrow>,
    );
    // Preact renders synchronously: nothing thrown means the state was already there.
    if (!thrown) done();
  });
}

/**
 * React hoists the `<link rel="modulepreload">` tags of `<Scripts>` into `<head>`, ahead of the
 * stylesheets; the client tree has no such links there. Preact pairs the elements of `<head>` with the
 * tree by tag name in document order (without reading their attributes), so it would pair the
 * stylesheet links with those preloads and drop the stylesheets. The modules are loaded by now.
 */
function dropHoistedModulePreloads() {
  for (const link of document.head.querySelectorAll('link[rel="modulepreload"]')) link.remove();
}

function hydrate() {
  startTransition(() => {
    hydrateRoot(
      document,
      <StrictMode>
        <HydratedRouter />
      </StrictMode>,
    );
  });
}

if (PREACT_CLIENT) {
  void routerStateDecoded().then(() => {
    dropHoistedModulePreloads();
    hydrate();
  });
} else hydrate();
