import { NavLink } from 'react-router';

export interface NavViewer {
  role: string;
  permissions: string[];
}

const TABS: { to: string; label: string; show: (v: NavViewer) => boolean }[] = [
  { to: '/app/administration/organization', label: 'Organization', show: (v) => v.permissions.includes('manage_users') },
  { to: '/app/administration/users', label: 'Users', show: (v) => v.permissions.includes('view_users') },
  { to: '/app/administration/groups', label: 'User groups', show: (v) => v.permissions.includes('view_users') },
  // API keys: admins signed in to the app (no permission of the vocabulary grants it).
  { to: '/app/administration/api-keys', label: 'API keys', show: (v) => v.role === 'admin' },
  { to: '/app/administration/agents', label: 'Agents', show: (v) => v.permissions.includes('view_datasources') },
  { to: '/app/administration/sso', label: 'Single sign-on', show: (v) => v.role === 'admin' },
  // Organization-wide security and the audit log (D65–D66): admins signed in to the app.
  { to: '/app/administration/security', label: 'Security', show: (v) => v.role === 'admin' },
  { to: '/app/administration/audit-log', label: 'Audit log', show: (v) => v.role === 'admin' },
  { to: '/app/administration/sharing-links', label: 'Sharing links', show: (v) => v.permissions.includes('manage_dashboards') },
  { to: '/app/administration/alerts', label: 'SQL alerts', show: (v) => v.permissions.includes('view_alerts') },
  { to: '/app/administration/schedules', label: 'Schedules', show: (v) => v.permissions.includes('view_schedules') },
  { to: '/app/administration/docs-search', label: 'Docs search', show: (v) => v.role === 'admin' },
];

/** The administration tabs the viewer's permissions open (the API still checks every call). */
function AdminNav({ viewer }: { viewer: NavViewer }) {
  return (
    <nav className="admin-nav" aria-label="Administration">
      {TABS.filter((t) => t.show(viewer)).map((t) => (
        <NavLink key={t.to} to={t.to} className={({ isActive }) => (isActive ? 'active' : undefined)}>
          {t.label}
        </NavLink>
      ))}
    </nav>
  );
}

export function AdminHeader({ title, lead, viewer }: { title: string; lead?: string; viewer: NavViewer }) {
  return (
    <>
      <header className="page-header">
        <div>
          <p className="eyebrow">Administration</p>
          <h1>{title}</h1>
          {lead ? <p className="muted page-header__desc">{lead}</p> : null}
        </div>
      </header>
      <AdminNav viewer={viewer} />
    </>
  );
}
