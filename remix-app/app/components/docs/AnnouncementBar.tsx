import { useEffect, useState } from 'react';
import { storageGet, storageSet } from '../../lib/docs-storage';
import { announcementBootScript, dismissAnnouncement, DISMISSED_ATTRIBUTE, syncAnnouncement } from './announcement';
import { siteConfig } from './config';

const store = { get: storageGet, set: storageSet };

export function AnnouncementBar() {
  const bar = siteConfig.announcementBar;
  // The server draws the bar; the boot script hides it before paint if it was dismissed.
  const [dismissed, setDismissed] = useState(false);
  useEffect(() => {
    if (!bar) return;
    const d = syncAnnouncement(bar.id, store);
    setDismissed(d);
    if (!d) document.documentElement.removeAttribute(DISMISSED_ATTRIBUTE);
  }, [bar]);
  if (!bar || dismissed) return null;
  return (
    <>
      <script dangerouslySetInnerHTML={{ __html: announcementBootScript(bar.id) }} />
      <div className="announcement-bar" role="region" aria-label="Announcement" data-announcement-id={bar.id}>
        <div className="announcement-bar__content" dangerouslySetInnerHTML={{ __html: bar.content }} />
        {bar.isCloseable ? (
          <button
            type="button"
            className="announcement-bar__close"
            aria-label="Close"
            title="Close"
            onClick={() => {
              dismissAnnouncement(store);
              setDismissed(true);
            }}
          >
            <svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true">
              <path d="M1 1l12 12M13 1L1 13" stroke="currentColor" strokeWidth="2" />
            </svg>
          </button>
        ) : null}
      </div>
    </>
  );
}
