import { describe, expect, it } from 'vitest';
import { isDocumentRequest, keepServerHtml, pageHtml } from './pageHtml';

describe('page HTML sent once', () => {
  it('leaves the HTML out of the loader data only for whole-document requests', () => {
    const req = (dest?: string) => new Request('http://docs.test/x', { headers: dest ? { 'sec-fetch-dest': dest } : {} });
    expect(isDocumentRequest(req('document'))).toBe(true);
    expect(isDocumentRequest(req('iframe'))).toBe(true);
    expect(isDocumentRequest(req('empty'))).toBe(false); // a client navigation's data fetch
    expect(isDocumentRequest(req())).toBe(false); // unknown clients get everything
  });

  it('renders the server copy when the loader data has none (on the server)', () => {
    keepServerHtml('/filters/date', '<p>Dates</p>');
    expect(pageHtml('/filters/date', null)).toBe('<p>Dates</p>');
    expect(pageHtml('/filters/date', '<p>Fresh</p>')).toBe('<p>Fresh</p>');
    expect(pageHtml('/unknown', null)).toBe('');
  });
});
