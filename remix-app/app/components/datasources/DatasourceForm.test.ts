import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { newDatasourceForm } from '../../lib/editor-datasources';
import { DatasourceForm } from './DatasourceForm';

/** The form's notes say what runs where, from @cairn/core's lists (issue 17, D59/D60). */
const render = (type: Parameters<typeof newDatasourceForm>[0], connection_mode: string) =>
  renderToStaticMarkup(
    createElement(DatasourceForm, {
      mode: 'create',
      initial: { ...newDatasourceForm(type), connection_mode },
      stored: { password: false, serviceKey: false },
      agents: [],
      errors: {},
      busy: false,
      readOnly: false,
      onSubmit: () => {},
    }),
  );

describe('the datasource form says what runs where', { timeout: 60_000 }, () => {
  it('SQL Server, Oracle and Vertica run through an agent, and the form says they were never run against a real server', () => {
    for (const [type, label] of [
      ['mssql', 'Microsoft SQL Server'],
      ['oracle', 'Oracle'],
      ['vertica', 'Vertica'],
    ] as const) {
      expect(render(type, 'agent')).toContain(`${label} runs through a Cairn agent, but Cairn has not run it against a real ${label} yet`);
      expect(render(type, 'direct')).toContain(
        `${label} runs through a Cairn agent only: choose Cairn agent under Connect through. It has not been tested against a real server yet.`,
      );
    }
    expect(render('postgres', 'agent')).not.toContain('has not run it against a real');
  });

  it('MySQL and MariaDB run through an SSH tunnel; ClickHouse does not, and the note names what does', () => {
    expect(render('mysql', 'ssh_tunnel')).not.toContain('cannot run through an SSH tunnel');
    expect(render('mariadb', 'ssh_tunnel')).not.toContain('cannot run through an SSH tunnel');
    expect(render('clickhouse', 'ssh_tunnel')).toContain(
      'ClickHouse cannot run through an SSH tunnel yet: tunnels run PostgreSQL, Amazon Redshift, MySQL and MariaDB.',
    );
  });
});
