/** Serving the search index files and checking insights batches. */
import { describe, expect, it } from 'vitest';
import { mayReadInsights, normalizeQuery, parseEvents, readInsightsRequest } from './docs-insights.server';
import { IMMUTABLE, REVALIDATE, searchIndexResponse, tagOfPath } from './search-index.server';

const asset = { tag: 'docs-default-current', hash: '0123456789abcdef', body: '{"documents":[],"index":{}}' };
const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => new Request(`https://docs.example${path}`, { method, headers });

describe('search index files', () => {
  it('answer with the file, its hash as ETag, cached for good at the versioned URL', async () => {
    const res = searchIndexResponse(get('/search-index-docs-default-current.json?v=0123456789abcdef'), asset);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('ETag')).toBe('"0123456789abcdef"');
    expect(res.headers.get('Cache-Control')).toBe(IMMUTABLE);
    expect(await res.text()).toBe(asset.body);
  });

  it('are revalidated at any other URL, and answer 304 for a matching If-None-Match', async () => {
    const plain = searchIndexResponse(get('/search-index-docs-default-current.json'), asset);
    expect(plain.headers.get('Cache-Control')).toBe(REVALIDATE);
    const old = searchIndexResponse(get('/search-index-docs-default-current.json?v=old'), asset);
    expect(old.headers.get('Cache-Control')).toBe(REVALIDATE);
    const again = searchIndexResponse(get('/search-index-docs-default-current.json', { 'If-None-Match': 'W/"0123456789abcdef"' }), asset);
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(searchIndexResponse(get('/search-index-docs-default-current.json', { 'If-None-Match': '"other"' }), asset).status).toBe(200);
    const head = searchIndexResponse(get('/search-index-docs-default-current.json', {}, 'HEAD'), asset);
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('answer JSON:API errors for an unknown tag and other methods', async () => {
    const missing = searchIndexResponse(get('/search-index-nope.json'), null);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('not_found');
    const post = searchIndexResponse(get('/search-index-default.json', {}, 'POST'), asset);
    expect(post.status).toBe(405);
    expect(post.headers.get('Allow')).toBe('GET, HEAD');
  });

  it('take the tag from the path', () => {
    expect(tagOfPath('/search-index-docs-api-v2024-06-01.json')).toBe('docs-api-v2024-06-01');
    expect(tagOfPath('/search-index-.json')).toBeNull();
    expect(tagOfPath('/search-index-a/b.json')).toBeNull();
  });
});

describe('insights batches', () => {
  const ok = {
    events: [
      { type: 'view', query: ' Date  Range ', results: 3, routes: ['/filters/date-range'] },
      { type: 'click', query: 'date range', route: '/filters/date-range#kinds', position: 1 },
    ],
  };

  it('are read into normalized events', () => {
    expect(parseEvents(ok)).toEqual({
      events: [
        { type: 'view', query: 'date range', results: 3 },
        { type: 'click', query: 'date range', route: '/filters/date-range#kinds', position: 1 },
      ],
    });
    expect(normalizeQuery('  A\tB  ')).toBe('a b');
  });

  it('are refused with a pointer to the bad member', () => {
    const pointer = (body: unknown) => {
      const r = parseEvents(body);
      return 'problem' in r ? [r.problem.status, r.problem.code, r.problem.source?.pointer] : null;
    };
    expect(pointer([])).toEqual([422, 'invalid_attribute', '']);
    expect(pointer({ events: [], x: 1 })).toEqual([422, 'unknown_attribute', '/x']);
    expect(pointer({ events: [] })).toEqual([422, 'invalid_attribute', '/events']);
    expect(pointer({ events: Array.from({ length: 21 }, () => ok.events[0]) })).toEqual([422, 'invalid_attribute', '/events']);
    expect(pointer({ events: [{ type: 'view', query: 'x'.repeat(513), results: 0 }] })).toEqual([422, 'invalid_attribute', '/events/0/query']);
    expect(pointer({ events: [{ type: 'view', query: '  ', results: 0 }] })).toEqual([422, 'invalid_attribute', '/events/0/query']);
    expect(pointer({ events: [{ type: 'view', query: 'q', results: 9 }] })).toEqual([422, 'invalid_attribute', '/events/0/results']);
    expect(pointer({ events: [{ type: 'view', query: 'q', results: 1, routes: ['https://evil.example/'] }] })).toEqual([
      422,
      'invalid_attribute',
      '/events/0/routes',
    ]);
    expect(pointer({ events: [{ type: 'click', query: 'q', route: '//evil.example', position: 1 }] })).toEqual([422, 'invalid_attribute', '/events/0/route']);
    expect(pointer({ events: [{ type: 'click', query: 'q', route: '/a', position: 0 }] })).toEqual([422, 'invalid_attribute', '/events/0/position']);
    expect(pointer({ events: [{ type: 'hover', query: 'q' }] })).toEqual([422, 'invalid_attribute', '/events/0/type']);
  });

  it('are refused over HTTP with the right status: method, media type, size, JSON', async () => {
    const post = (body: string, type = 'application/json') =>
      readInsightsRequest(new Request('https://docs.example/docs-insights', { method: 'POST', body, headers: { 'Content-Type': type } }));
    const status = async (p: ReturnType<typeof post>) => {
      const r = await p;
      if (!('response' in r)) return 200;
      const body = (await r.response.json()) as { errors: { code: string }[] };
      return `${r.response.status} ${body.errors[0]!.code}`;
    };
    expect(await status(post(JSON.stringify(ok)))).toBe(200);
    expect(await status(post(JSON.stringify(ok), 'text/plain;charset=UTF-8'))).toBe(200);
    expect(await status(post(JSON.stringify(ok), 'application/xml'))).toBe('415 unsupported_media_type');
    expect(await status(post('{"events": ['))).toBe('400 malformed_json');
    expect(await status(post(JSON.stringify({ events: [{ type: 'view', query: 'x'.repeat(17_000), results: 0 }] })))).toBe('400 bad_request');
    const get = await readInsightsRequest(new Request('https://docs.example/docs-insights'));
    expect('response' in get && get.response.status).toBe(405);
  });
});

describe('who reads the report', () => {
  it('is an admin, of a listed organization when a list is set', () => {
    expect(mayReadInsights({ role: 'admin' }, 'org_a', undefined)).toBe(true);
    expect(mayReadInsights({ role: 'analyst' }, 'org_a', undefined)).toBe(false);
    expect(mayReadInsights({ role: 'admin' }, 'org_a', 'org_b, org_a')).toBe(true);
    expect(mayReadInsights({ role: 'admin' }, 'org_c', 'org_b,org_a')).toBe(false);
  });
});
