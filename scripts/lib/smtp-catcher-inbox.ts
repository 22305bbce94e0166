/**
 * The SMTP catcher's inbox page: a list of the caught messages and the selected one (headers, text,
 * HTML in a sandboxed frame without scripts whose links open in a new tab, attachments), refreshed
 * every few seconds. Built from the JSON API with DOM calls only (never innerHTML of message data).
 */
export const INBOX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Cairn mail catcher</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  :root { color-scheme: light dark; font: 14px/1.4 system-ui, sans-serif; }
  body { margin: 0; display: grid; grid-template-columns: minmax(260px, 34%) 1fr; height: 100vh; }
  header { grid-column: 1 / -1; display: flex; gap: 1rem; align-items: center; padding: .5rem 1rem; border-bottom: 1px solid #8884; }
  header h1 { font-size: 1rem; margin: 0; flex: 1; }
  #list { overflow: auto; border-right: 1px solid #8884; margin: 0; padding: 0; list-style: none; }
  #list li { padding: .5rem 1rem; border-bottom: 1px solid #8882; cursor: pointer; }
  #list li.selected { background: #4a90e233; }
  #list .subject { font-weight: 600; }
  #list .meta { color: #888; font-size: .85em; }
  #view { overflow: auto; padding: 1rem; }
  #view dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0 0 1rem; }
  #view dt { color: #888; }
  #view dd { margin: 0; word-break: break-all; }
  #view pre { white-space: pre-wrap; border: 1px solid #8884; padding: .75rem; }
  #view iframe { width: 100%; height: 60vh; border: 1px solid #8884; background: #fff; }
  .empty { color: #888; padding: 1rem; }
</style>
</head>
<body>
<header>
  <h1>Cairn mail catcher <span id="count" class="meta"></span></h1>
  <button id="refresh" type="button">Refresh</button>
  <button id="clear" type="button">Delete all</button>
</header>
<ul id="list"></ul>
<main id="view"><p class="empty">Nothing is delivered: every message sent to this catcher lands here.</p></main>
<script>
(() => {
  const list = document.getElementById('list');
  const view = document.getElementById('view');
  let selected = null;
  const el = (tag, text, cls) => { const e = document.createElement(tag); if (text != null) e.textContent = text; if (cls) e.className = cls; return e; };

  async function load() {
    const messages = await (await fetch('messages')).json();
    document.getElementById('count').textContent = '(' + messages.length + ')';
    list.replaceChildren(...messages.map((m) => {
      const li = el('li');
      if (m.id === selected) li.className = 'selected';
      li.append(el('div', m.subject || '(no subject)', 'subject'), el('div', 'to ' + m.to.join(', '), 'meta'), el('div', new Date(m.date).toLocaleString() + ' · ' + m.size + ' bytes', 'meta'));
      li.onclick = () => { selected = m.id; show(m.id); load(); };
      return li;
    }));
    if (!messages.length) list.append(el('li', 'No messages yet.', 'empty'));
  }

  async function show(id) {
    const m = await (await fetch('messages/' + encodeURIComponent(id))).json();
    const dl = el('dl');
    const row = (k, v) => { if (v) dl.append(el('dt', k), el('dd', v)); };
    row('Subject', m.subject); row('From', m.from); row('To', m.to); row('Cc', m.cc);
    row('Envelope', (m.envelope.from || '<>') + ' → ' + m.envelope.to.join(', '));
    row('Date', m.date); row('Message-ID', m.message_id);
    const raw = el('a', 'raw message'); raw.href = 'messages/' + encodeURIComponent(id) + '/raw';
    const parts = [el('h2', m.subject || '(no subject)'), dl, raw];
    if (m.html != null) {
      // No scripts; links open in a new tab (a <base> added in front of the message's own markup).
      const frame = el('iframe'); frame.setAttribute('sandbox', 'allow-popups allow-popups-to-escape-sandbox'); frame.srcdoc = '<base target="_blank">' + m.html;
      parts.push(el('h3', 'HTML'), frame);
    }
    if (m.text != null) parts.push(el('h3', 'Text'), el('pre', m.text));
    if (m.attachments.length) {
      const ul = el('ul');
      for (const a of m.attachments) ul.append(el('li', (a.filename || '(unnamed)') + ' — ' + a.content_type + ', ' + a.size + ' bytes'));
      parts.push(el('h3', 'Attachments'), ul);
    }
    view.replaceChildren(...parts);
  }

  document.getElementById('refresh').onclick = load;
  document.getElementById('clear').onclick = async () => { await fetch('messages', { method: 'DELETE' }); selected = null; view.replaceChildren(el('p', 'Deleted.', 'empty')); load(); };
  load();
  setInterval(load, 3000);
})();
</script>
</body>
</html>
`;
