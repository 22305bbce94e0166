/** The API reference generated from the OpenAPI document: rendering, escaping, and the real document. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compilePage } from '../src/build/compile.ts';
import {
  curlExample,
  errorCodesFor,
  expandOpenApiMarker,
  loadApiDocument,
  mdText,
  OPENAPI_MARKER,
  operationsOf,
  type OpenApiDocument,
} from '../src/build/openapi.ts';

const DOC: OpenApiDocument = {
  openapi: '3.1.0',
  paths: {
    '/widgets': {
      get: {
        tags: ['Widgets'],
        summary: 'List widgets',
        description: 'Widgets in {your} org, <b>sorted</b> by `name | id`. Needs *View* Widgets & more.',
        'x-permissions': ['view_dashboards'],
        parameters: [
          { name: 'page[size]', in: 'query', required: false, description: 'Items per page.', schema: { type: 'string', description: 'Items per page.' } },
        ],
        responses: {
          '200': {
            description: 'A page of widgets',
            content: {
              'application/vnd.api+json': {
                schema: { type: 'object', properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Widget' } } } },
              },
            },
          },
          '401': { description: 'No key' },
          '429': { description: 'Slow down' },
        },
      },
      post: {
        tags: ['Widgets'],
        summary: 'Create a widget',
        'x-permissions': ['manage_dashboards'],
        requestBody: {
          required: true,
          content: {
            'application/vnd.api+json': {
              schema: {
                type: 'object',
                properties: {
                  data: {
                    type: 'object',
                    properties: {
                      type: { type: 'string', enum: ['widgets'] },
                      attributes: {
                        type: 'object',
                        required: ['name'],
                        properties: {
                          name: { type: 'string', minLength: 1, maxLength: 200 },
                          color: { type: 'string', enum: ['red', 'blue'], default: 'red' },
                          size: { type: ['integer', 'null'], minimum: 1, maximum: 10 },
                          config: { $ref: '#/components/schemas/WidgetConfig' },
                        },
                      },
                      relationships: {
                        type: 'object',
                        properties: {
                          reports: {
                            type: 'object',
                            properties: { data: { type: 'array', items: { type: 'object', properties: { type: { type: 'string', enum: ['reports'] } } } } },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
        responses: { '201': { description: 'The widget' }, '422': { description: 'Invalid' } },
      },
    },
    '/widgets/{id}/spin': {
      post: {
        tags: ['Widget actions'],
        summary: "Spin a widget's wheel",
        'x-permissions': ['view_dashboards', 'view_alerts'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', example: 'wdg_1' } }],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['speed'],
                properties: { speed: { type: 'integer', minimum: 2 }, note: { type: 'string', example: "it's fast" } },
              },
            },
          },
        },
        responses: { '204': { description: 'Spun' }, '429': { description: 'Too fast for spinning' } },
      },
    },
    '/public/{token}': {
      post: {
        tags: ['Public'],
        summary: 'Open a link',
        security: [],
        'x-permissions': ['sharing link token'],
        parameters: [{ name: 'token', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'The link' } },
      },
    },
    '/api_keys': {
      get: {
        tags: ['Keys'],
        summary: 'List keys',
        'x-permissions': ['admin session'],
        responses: { '200': { description: 'Keys' }, '429': { description: 'Slow down' } },
      },
    },
  },
  components: {
    schemas: {
      Widget: {
        type: 'object',
        properties: {
          type: { type: 'string', enum: ['widgets'] },
          id: { type: 'string' },
          attributes: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, created_at: { type: 'string', format: 'date-time' } } },
          relationships: { type: 'object', properties: { reports: { type: 'object' } } },
        },
      },
      WidgetConfig: { type: 'object', properties: { mode: { type: 'string', pattern: '^a|b$' } } },
    },
  },
};

async function render(doc: OpenApiDocument) {
  const source = `---\ntitle: Reference\n---\n\nIntro.\n\n${OPENAPI_MARKER}\n`;
  const expanded = expandOpenApiMarker(source, doc);
  expect(expanded).not.toContain(OPENAPI_MARKER);
  return compilePage(expanded, join(process.cwd(), 'reference.mdx'), 'reference.mdx');
}

describe('rendering operations', () => {
  it('renders each operation under its tag with permission, parameters, body, responses and a curl example', async () => {
    const page = await render(DOC);
    const { html, facts } = page;
    expect(facts.toc.map((t) => [t.depth, t.title])).toEqual([
      [2, 'Widgets'],
      [3, 'List widgets'],
      [3, 'Create a widget'],
      [2, 'Widget actions'],
      [3, "Spin a widget's wheel"],
      [2, 'Public'],
      [3, 'Open a link'],
      [2, 'Keys'],
      [3, 'List keys'],
      [2, 'Schemas'],
      [3, 'Widget object'],
      [3, 'WidgetConfig object'],
    ]);
    for (const op of ['GET /widgets', 'POST /widgets', 'POST /widgets/{id}/spin', 'POST /public/{token}', 'GET /api_keys']) {
      expect(html).toContain(`data-operation="${op}"`);
    }
    expect(html).toContain('<code class="api-method api-method--post">POST</code> <code>/widgets/{id}/spin</code>');
    expect(html).toContain('<strong>Permission:</strong> View Dashboards (<code>view_dashboards</code>)');
    expect(html).toContain('any of View Dashboards (<code>view_dashboards</code>), View Alerts (<code>view_alerts</code>)');
    expect(html).toContain('an admin signed in to the web app');
    expect(html).toContain('<strong>Permission:</strong> no API key; sharing link token</p>');
    // Description text arrives as text: braces, tags, pipes and emphasis characters are not markup.
    expect(html).toContain('Widgets in {your} org, &lt;b&gt;sorted&lt;/b&gt; by <code>name | id</code>. Needs *View* Widgets &amp; more.');
    // Parameter table (the schema repeating the description is not shown twice).
    expect(html).toMatch(/<td><code>page\[size\]<\/code><\/td><td>query<\/td><td>string<\/td><td>no<\/td><td>Items per page\.<\/td>/);
    // JSON:API body: type, attribute table with constraints, relationships.
    expect(html).toContain('<code>data.type</code> is <code>widgets</code>.');
    expect(html).toMatch(/<td><code>name<\/code><\/td><td>string<\/td><td>yes<\/td><td>1 to 200 characters<\/td>/);
    expect(html).toMatch(
      /<td><code>color<\/code><\/td><td>string<\/td><td>no<\/td><td>one of <code>&quot;red&quot;<\/code>, <code>&quot;blue&quot;<\/code>; default <code>&quot;red&quot;<\/code><\/td>/,
    );
    expect(html).toMatch(/<td><code>size<\/code><\/td><td>integer or null<\/td><td>no<\/td><td>1 to 10<\/td>/);
    expect(html).toContain('<a href="#widgetconfig-object"><code>WidgetConfig</code></a>');
    expect(html).toContain('Relationships: <code>reports</code> (to-many <code>reports</code>).');
    // Plain JSON body of an action.
    expect(html).toMatch(/<td><code>speed<\/code><\/td><td>integer<\/td><td>yes<\/td><td>at least 2<\/td>/);
    // Responses: the success body links its schema; errors are one line of statuses with their codes,
    // with a description only where it differs from the usual one of that status.
    expect(html).toMatch(/<td><code>200<\/code><\/td><td>A page of widgets<\/td><td>list of <a href="#widget-object"><code>Widget<\/code><\/a><\/td>/);
    expect(html).toContain('<strong>Errors:</strong> <code>401</code> (unauthorized, invalid_api_key, api_key_disabled) · <code>429</code> (rate_limited)</p>');
    expect(html).toContain(
      '<strong>Errors:</strong> <code>422</code> (invalid_attribute, read_only_attribute, unknown_attribute, missing_attribute, invalid_relationship, plan_limit, invalid_state, query_error)</p>',
    );
    expect(html).toContain('<strong>Errors:</strong> <code>429</code> (rate_limited) Too fast for spinning</p>');
    // Schemas with their anchors (the links above resolve).
    expect(facts.headingIds).toContain('widget-object');
    expect(facts.headingIds).toContain('widgetconfig-object');
    expect(html).toMatch(/<td><code>mode<\/code><\/td><td>string<\/td><td>no<\/td><td>pattern <code>\^a\|b\$<\/code><\/td>/);
    // Every operation has its example.
    expect(html.match(/<code class="language-sh">curl -X /g)).toHaveLength(5);
  });

  it('writes curl examples with the key, the media type and an example body', () => {
    const [list, create, spin, open, keys] = operationsOf(DOC);
    expect(curlExample(DOC, list!)).toBe(
      'curl -X GET "$CAIRN_API/widgets" \\\n  -H "Authorization: Api $CAIRN_KEY" \\\n  -H "Accept: application/vnd.api+json"',
    );
    expect(curlExample(DOC, create!)).toBe(
      [
        'curl -X POST "$CAIRN_API/widgets"',
        '-H "Authorization: Api $CAIRN_KEY"',
        '-H "Content-Type: application/vnd.api+json"',
        `-d '{"data":{"type":"widgets","attributes":{"name":"text"}}}'`,
      ].join(' \\\n  '),
    );
    // Path examples fill the path; a quote inside the body survives shell quoting.
    expect(curlExample(DOC, spin!)).toContain('"$CAIRN_API/widgets/wdg_1/spin"');
    expect(curlExample(DOC, spin!)).toContain(`-d '{"speed":2}'`);
    // A public call sends no credentials.
    expect(curlExample(DOC, open!)).toBe('curl -X POST "$CAIRN_API/public/TOKEN" \\\n  -H "Accept: application/vnd.api+json"');
    // Calls only a signed-in admin may make show the session header instead of a key.
    expect(curlExample(DOC, keys!)).toContain('Authorization: Session $CAIRN_SESSION');
  });

  it('escapes prose for MDX but keeps code spans', () => {
    expect(mdText('a {b} <c> `d|{e}` *f*')).toBe('a \\{b\\} \\<c\\> `d|{e}` \\*f\\*');
    expect(mdText('x | y `p|q`', true)).toBe('x \\| y `p\\|q`');
    expect(mdText('- not a list')).toBe('\\- not a list');
  });

  it('lists the API server error codes of a status', () => {
    expect(errorCodesFor(401)).toEqual(['unauthorized', 'invalid_api_key', 'api_key_disabled']);
    expect(errorCodesFor(403)).toEqual(['wrong_region', 'forbidden']);
    expect(errorCodesFor(429)).toEqual(['rate_limited']);
    // A call that takes no API key never answers the key's codes.
    expect(errorCodesFor(401, true)).toEqual(['unauthorized']);
  });

  it('leaves a page without the marker alone', () => {
    expect(expandOpenApiMarker('# Title\n\ntext\n', DOC)).toBe('# Title\n\ntext\n');
  });
});

describe('the real API reference page', () => {
  it("builds worker-api's /openapi.json without a database and renders every operation of it", async () => {
    const doc = await loadApiDocument();
    const ops = operationsOf(doc);
    expect(ops.length).toBeGreaterThan(50);
    expect(ops.some((o) => o.method === 'get' && o.path === '/dashboards')).toBe(true);
    const file = join(import.meta.dirname, '..', 'pages', 'api', 'v2024-06-01.mdx');
    const source = await readFile(file, 'utf8');
    expect(source).toContain(OPENAPI_MARKER);
    const page = await compilePage(expandOpenApiMarker(source, doc), file, 'api/v2024-06-01.mdx');
    const listed = [...page.html.matchAll(/data-operation="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    expect(listed.sort()).toEqual(ops.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort());
    expect(page.html.match(/<code class="language-sh">curl -X /g)?.length).toBe(ops.length);
    // The hand-written intro stays.
    for (const id of ['servers-and-regions', 'errors', 'rate-limits', 'lists', 'operations']) expect(page.facts.headingIds).toContain(id);
    // Public calls list no API-key errors; examples use ids of their resource's kind.
    const section = (op: string) => page.html.slice(page.html.indexOf(`data-operation="${op}"`)).split('<h3')[0]!;
    expect(section('POST /public/links/{token}')).toContain('<code>401</code> (unauthorized)');
    expect(section('POST /public/links/{token}')).not.toContain('invalid_api_key');
    expect(section('GET /dashboards/{id}')).toContain('invalid_api_key');
    expect(section('GET /reports/{id}')).toContain('$CAIRN_API/reports/rep_');
    expect(section('GET /executions/{id}')).toContain('$CAIRN_API/executions/exe_');
    // The value forms of a range filter are named where selected_values is described.
    const values = JSON.stringify(doc.components?.schemas?.InputParameters);
    expect(values).toContain('\\"start~end\\"');
    expect(values).toContain('[start, end]');
    // Every schema link lands on a heading of the page.
    const anchors = [...page.html.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]!);
    expect(anchors.filter((a) => !page.facts.headingIds.has(a))).toEqual([]);
  }, 120_000);
});
