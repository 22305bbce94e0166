import { describe, expect, it } from 'vitest';
import { deferHydration, defersHydration } from './defer-hydration.server';

const page = (boot: string) =>
  '<!DOCTYPE html><html><head><link rel="icon" href="/favicon.svg"/>' +
  '<link rel="modulepreload" href="/assets/entry.client-A.js"/><link rel="modulepreload" href="/assets/root-B.js"/>' +
  '<link rel="stylesheet" href="/assets/root.css"/></head><body><main>Text</main>' +
  '<script>window.__ctx = 1;</script>' +
  boot +
  '</body></html>';

const BOOT = '<script type="module" async="">;\nimport * as route0 from "/assets/root-B.js";\nimport("/assets/entry.client-A.js");</script>';

/** Runs the loader script of a deferred page in a tiny stand-in of the DOM and reports what it added. */
function runLoader(html: string, frames: boolean) {
  const script = /<script>(\(function\(\)\{var done[\s\S]*?)<\/script>/.exec(html)![1]!;
  const added: { tag: string; rel?: string; href?: string; type?: string; text?: string }[] = [];
  const timers: (() => void)[] = [];
  const frameCallbacks: (() => void)[] = [];
  const el = (tag: string) => ({
    tag,
    rel: undefined as string | undefined,
    href: undefined as string | undefined,
    type: undefined as string | undefined,
    textContent: '',
  });
  type El = ReturnType<typeof el>;
  const document = {
    createElement: el,
    createDocumentFragment: () => {
      const children: El[] = [];
      return { fragment: true, children, appendChild: (e: El) => children.push(e) };
    },
    head: {
      appendChild: (e: El | { fragment: true; children: El[] }) => {
        for (const c of 'fragment' in e ? e.children : [e]) added.push({ tag: c.tag, rel: c.rel, href: c.href });
      },
    },
    body: { appendChild: (e: ReturnType<typeof el>) => added.push({ tag: e.tag, type: e.type, text: e.textContent }) },
  };
  new Function('document', 'requestAnimationFrame', 'setTimeout', script)(
    document,
    (fn: () => void) => frameCallbacks.push(fn),
    (fn: () => void) => timers.push(fn),
  );
  if (frames) frameCallbacks.forEach((f) => f());
  return { added, timers, frameCallbacks };
}

describe('deferHydration', () => {
  it('takes the module preloads and the boot module out of the document', () => {
    const out = deferHydration(page(BOOT));
    expect(out).not.toContain('<link rel="modulepreload"');
    expect(out).not.toContain('<script type="module"');
    expect(out).toContain('<link rel="stylesheet" href="/assets/root.css"/>');
    expect(out).toContain('<link rel="icon" href="/favicon.svg"/>');
    expect(out).toContain('<script>window.__ctx = 1;</script>');
    expect(out.indexOf('<main>Text</main>')).toBeLessThan(out.indexOf('(function(){var done'));
  });

  it('adds the same preloads and module back once, after a frame, with the exact code', () => {
    const out = deferHydration(page(BOOT));
    const { added, timers } = runLoader(out, true);
    expect(added).toEqual([]);
    timers.forEach((t) => t());
    expect(added).toEqual([
      { tag: 'link', rel: 'modulepreload', href: '/assets/entry.client-A.js' },
      { tag: 'link', rel: 'modulepreload', href: '/assets/root-B.js' },
      { tag: 'script', type: 'module', text: ';\nimport * as route0 from "/assets/root-B.js";\nimport("/assets/entry.client-A.js");' },
    ]);
  });

  it('still hydrates when no frame is drawn (a background tab)', () => {
    const { added, timers } = runLoader(deferHydration(page(BOOT)), false);
    expect(timers).toHaveLength(1);
    timers[0]!();
    expect(added.filter((a) => a.tag === 'script')).toHaveLength(1);
  });

  it('keeps code that holds </script> or a comment opener from ending the loader early', () => {
    const tricky = '<script type="module" async="">const s = "<\\/script><!--";\nimport("/assets/x.js");</script>';
    const out = deferHydration(page(tricky));
    const loader = /<script>\(function\(\)\{var done[\s\S]*?<\/script>/.exec(out)![0];
    expect(loader.slice(0, -'</script>'.length)).not.toMatch(/<\/script|<!--/i);
    const { added, timers } = runLoader(out, true);
    timers.forEach((t) => t());
    expect(added.at(-1)!.text).toBe('const s = "<\\/script><!--";\nimport("/assets/x.js");');
  });

  it('leaves a document without a boot module alone', () => {
    const html = '<html><head><link rel="modulepreload" href="/a.js"/></head><body></body></html>';
    expect(deferHydration(html)).toBe(html);
  });

  it('adds a module listed twice once', () => {
    const twice = page(BOOT).replace(
      '<link rel="modulepreload" href="/assets/root-B.js"/>',
      '<link rel="modulepreload" href="/assets/root-B.js"/><link rel="modulepreload" href="/assets/entry.client-A.js"/>',
    );
    const { added, timers } = runLoader(deferHydration(twice), true);
    timers.forEach((t) => t());
    expect(added.filter((a) => a.tag === 'link').map((a) => a.href)).toEqual(['/assets/entry.client-A.js', '/assets/root-B.js']);
  });
});

describe('defersHydration', () => {
  it('defers the docs only (D67: not a sharing link), not the analyst app or the sign-in page', () => {
    expect(defersHydration(['root', 'docs-layout', 'docs-page'])).toBe(true);
    expect(defersHydration(['root', 'routes/s.$token'])).toBe(false);
    expect(defersHydration(['root', 'routes/app.layout', 'routes/app.dashboard'])).toBe(false);
    expect(defersHydration(['root', 'routes/app.login'])).toBe(false);
    expect(defersHydration(['root', 'routes/s.$token.status'])).toBe(false);
  });
});
