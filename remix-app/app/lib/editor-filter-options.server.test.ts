import { describe, expect, it } from 'vitest';
import { ApiClient } from './api.server';
import type { AppEnv, ServiceBinding } from './env.server';
import { filterOptions, flattenOptionSets } from './editor-filter-options.server';
import { binding } from './service-binding.test-kit';

const page = new Request('http://app/app/reports/new?dashboard=d1');
const client = (api: ServiceBinding) => new ApiClient({ API: api, DATA: api } as AppEnv, page, 'tok123');

describe('the report editor’s dropdown options', () => {
  it('asks the filter options call with the dashboard and the values in force', async () => {
    const api = binding(() =>
      Response.json({ data_timestamp: '2026-11-26T10:00:00Z', options: [{ values: ['paid', 'open'], value_names: ['Paid', 'Open'], parent_values: [] }] }),
    );
    const parameters = { filters: [{ variable_name: 'country', selected_values: ['DE'] }] };
    const answer = await filterOptions(client(api), 'flt_1', 'dsh_1', parameters);
    expect(answer).toEqual({
      status: 'ok',
      options: [
        { value: 'paid', label: 'Paid' },
        { value: 'open', label: 'Open' },
      ],
    });
    expect(api.seen).toHaveLength(1);
    const req = api.seen[0]!;
    expect(req.method).toBe('POST');
    expect(new URL(req.url).pathname).toBe('/filters/flt_1/options');
    expect(await req.json()).toEqual({ dashboard_id: 'dsh_1', parameters });
  });

  it('flattens the option sets of a child dropdown, each value once, labels defaulting to the value', () => {
    expect(
      flattenOptionSets([
        { values: ['a', 1, null], value_names: ['A'], parent_values: ['x'] },
        { values: ['a', true], value_names: ['again', null], parent_values: ['y'] },
      ]),
    ).toEqual([
      { value: 'a', label: 'A' },
      { value: '1', label: '1' },
      { value: 'true', label: 'true' },
    ]);
    expect(flattenOptionSets(undefined)).toEqual([]);
  });

  it('answers the API’s refusal with its code, message and status', async () => {
    const api = binding(() =>
      Response.json({ errors: [{ status: '422', code: 'invalid_state', detail: 'Its query is still running; ask again shortly.' }] }, { status: 422 }),
    );
    expect(await filterOptions(client(api), 'flt_1', 'dsh_1', undefined)).toEqual({
      status: 'error',
      code: 'invalid_state',
      message: 'Its query is still running; ask again shortly.',
      httpStatus: 422,
    });
    const gone = binding(() => Response.json({ errors: [{ status: '404', code: 'not_found', detail: 'No filter with id "flt_9".' }] }, { status: 404 }));
    expect(await filterOptions(client(gone), 'flt_9', 'dsh_1', {})).toMatchObject({ status: 'error', httpStatus: 404 });
  });
});
