import { Link } from 'react-router';
import { Logo } from '../Logo';
import { siteConfig, type FooterLink } from './config';

function FooterItem({ link }: { link: FooterLink }) {
  if (link.to)
    return (
      <Link to={link.to} className="footer__link">
        {link.label}
      </Link>
    );
  const external = /^[a-z][a-z\d+.-]*:|^\/\//i.test(link.href ?? '');
  return (
    <a href={link.href} className="footer__link" {...(external ? { target: '_blank', rel: 'noopener noreferrer' } : {})}>
      {link.label}
      {external ? <span className="visually-hidden"> (opens in a new tab)</span> : null}
    </a>
  );
}

export function Footer() {
  const { footer } = siteConfig;
  if (!footer) return null;
  const columns = footer.links.length > 0 && 'items' in footer.links[0]! ? (footer.links as { title: string; items: FooterLink[] }[]) : null;
  return (
    <footer className={`footer footer--${footer.style}`}>
      <div className="footer__container">
        {columns ? (
          <div className="footer__columns">
            {columns.map((col) => (
              <div key={col.title} className="footer__col">
                <h2 className="footer__title">{col.title}</h2>
                <ul className="footer__items">
                  {col.items.map((l) => (
                    <li key={l.label}>
                      <FooterItem link={l} />
                    </li>
                  ))}
                </ul>
              </div>
            ))}
          </div>
        ) : (
          <ul className="footer__links-simple">
            {(footer.links as FooterLink[]).map((l) => (
              <li key={l.label}>
                <FooterItem link={l} />
              </li>
            ))}
          </ul>
        )}
        <div className="footer__bottom">
          {footer.logo ? (
            <Link to={footer.logo.href} className="footer__logo" aria-label={footer.logo.alt}>
              <Logo size={28} />
              <span aria-hidden="true">Cairn</span>
            </Link>
          ) : null}
          <p className="footer__copyright">{footer.copyright(new Date().getFullYear())}</p>
        </div>
      </div>
    </footer>
  );
}
