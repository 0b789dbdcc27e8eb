// Every piece of data reaches the page as a text node (textContent), never as markup: message
// bodies, properties, topic and group names come from whoever sends to the cluster.

/** An element with attributes (not event handlers) and children (strings become text nodes). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'onclick' || name === 'onsubmit' || name === 'oninput')
      el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** A table of rows; each cell is a value (shown as text) or a Node. */
export function table(headers, rows, attrs = {}) {
  return h(
    'table',
    attrs,
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        headers.map((x) => h('th', {}, x)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((cells) =>
        cells instanceof Node
          ? cells
          : h(
              'tr',
              {},
              cells.map((c) => h('td', {}, c)),
            ),
      ),
    ),
  );
}

export function time(ms) {
  if (ms === null || ms === undefined || Number(ms) <= 0) return '-';
  return new Date(Number(ms)).toISOString().replace('T', ' ').replace('Z', '');
}

export function num(n, digits = 0) {
  if (n === null || n === undefined) return '-';
  return Number(n).toLocaleString('en-US', { maximumFractionDigits: digits });
}

export function link(hash, text) {
  return h('a', { href: hash }, text);
}

/** `#/topic?topic=x` with the value encoded, so a name cannot add parameters. */
export function hashOf(view, params) {
  return `#/${view}?${new URLSearchParams(params)}`;
}
