import { describe, expect, it } from 'vitest';
import { duplicatedId, reportSqlById, sqlForDisplay } from './tile-tools';
import type { DashboardAttributes, SingleDocument } from './types';

const doc: SingleDocument<DashboardAttributes> = {
  data: { type: 'dashboards', id: 'dsh_1', attributes: { name: 'D', layout: [] } },
  included: [
    { type: 'reports', id: 'rep_a', attributes: { name: 'A', sql_query: 'SELECT 1' } },
    { type: 'reports', id: 'rep_b', attributes: { name: 'B' } },
    { type: 'reports', id: 'rep_c', attributes: { name: 'C', sql_query: null } },
    { type: 'filters', id: 'fil_a', attributes: { variable_name: 'country', sql_query: 'SELECT code FROM countries' } },
  ],
} as never;

describe('tile tools', () => {
  it('maps each report to its SQL, leaving out reports without SQL and the filters', () => {
    expect(reportSqlById(doc)).toEqual({ rep_a: 'SELECT 1' });
    expect(reportSqlById({ data: doc.data } as never)).toEqual({});
  });

  it("reads the copy's id from the duplicate call's answer", () => {
    expect(duplicatedId({ data: { type: 'reports', id: 'rep_copy' } })).toBe('rep_copy');
    expect(duplicatedId({ data: { id: '' } })).toBeNull();
    expect(duplicatedId(null)).toBeNull();
    expect(duplicatedId({ errors: [] })).toBeNull();
  });

  it('shows the SQL with normalised line endings and without trailing blank lines', () => {
    expect(sqlForDisplay('SELECT a\r\nFROM t\r\n\r\n  ')).toBe('SELECT a\nFROM t');
    expect(sqlForDisplay('  SELECT 1')).toBe('  SELECT 1');
    expect(sqlForDisplay('')).toBe('');
  });
});
