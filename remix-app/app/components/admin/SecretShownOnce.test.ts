import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { SecretShownOnce } from './SecretShownOnce';

const render = (hint?: string) =>
  renderToStaticMarkup(
    createElement(SecretShownOnce, {
      title: 'Key “ETL” created.',
      warning: 'Copy it now: this is the only time Cairn shows it.',
      value: 'cairn_eu_k1_s3cret',
      hint,
      testIds: { box: 'new-key', value: 'new-key-secret', copy: 'copy-key' },
    }),
  );

describe('a secret shown once', () => {
  it('is announced as a status, with what was created, the warning, the value and a copy button', () => {
    const html = render('Programs send it as Authorization: Api <key>.');
    expect(html).toMatch(/^<div class="secret-box" role="status" data-testid="new-key">/);
    expect(html).toContain('<strong>Key “ETL” created.</strong> Copy it now: this is the only time Cairn shows it.');
    expect(html).toContain('<code data-testid="new-key-secret">cairn_eu_k1_s3cret</code>');
    expect(html).toMatch(/<button type="button" class="button button--small" data-testid="copy-key" aria-live="polite">Copy<\/button>/);
    expect(html).toContain('<span class="muted small">Programs send it as Authorization: Api &lt;key&gt;.</span>');
  });

  it('leaves the small print out without a hint', () => {
    expect(render()).not.toContain('muted small');
  });
});
