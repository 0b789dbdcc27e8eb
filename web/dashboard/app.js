// The dashboard's pages, one per hash route (#/cluster, #/topics, #/topic?topic=.., #/groups,
// #/group?group=.., #/producers, #/messages, #/message?msgId=..). Data is shown with textContent only.
import { get, post } from './api.js';
import { drawTps } from './chart.js';
import { h, hashOf, link, num, table, time } from './dom.js';

const main = document.getElementById('main');
const status = document.getElementById('status');
let tpsTimer;

function showError(error) {
  // A broker's refusal (an ACL refusal, say) is in the message: `CODE: 16 DESC: <remark> ...`.
  return h('p', { class: 'error', role: 'alert' }, error.message);
}

function field(label, input) {
  return h('label', {}, label, input);
}

/** A form whose submit runs `action` and shows its outcome in the form's message line. */
function actionForm(attrs, fields, buttonText, action) {
  const message = h('span', { class: 'form-message' });
  const form = h('form', attrs, ...fields, h('button', { type: 'submit' }, buttonText), message);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    message.className = 'form-message';
    message.textContent = 'working…';
    try {
      message.textContent = (await action(new FormData(form))) ?? 'done';
      message.classList.add('ok');
    } catch (error) {
      message.textContent = error.message;
      message.classList.add('error');
    }
  });
  return form;
}

async function clusterView() {
  const [cluster, tps] = await Promise.all([get('/api/cluster'), get('/api/tps')]);
  const canvas = h('canvas', { width: 900, height: 220, id: 'tps-chart' });
  drawTps(canvas, tps.points);
  tpsTimer = setInterval(async () => {
    try {
      drawTps(canvas, (await get('/api/tps')).points);
    } catch {
      // The next tick tries again.
    }
  }, tps.intervalMs);
  return [
    h('h2', {}, 'Cluster'),
    h('p', { class: 'muted' }, `Name servers: ${cluster.namesrvAddr.join(';')}`),
    table(
      [
        'Cluster',
        'Broker',
        'Id',
        'Address',
        'Version',
        'Put TPS',
        'Get TPS',
        'Disk used',
        'Put today',
        'Get today',
        'Booted',
        'Error',
      ],
      cluster.brokers.map((b) => [
        b.cluster,
        b.brokerName,
        b.brokerId,
        b.addr,
        b.version ?? '-',
        num(b.putTps, 1),
        num(b.getTps, 1),
        b.diskRatio === null ? '-' : `${(b.diskRatio * 100).toFixed(1)} %`,
        num(b.msgPutTotalTodayNow),
        num(b.msgGetTotalTodayNow),
        time(b.bootTimestamp),
        b.error ?? '',
      ]),
      { id: 'brokers' },
    ),
    h('h3', {}, `Live TPS (every ${tps.intervalMs / 1000} s)`),
    canvas,
  ];
}

async function topicsView(params) {
  const { topics, errors } = await get('/api/topics');
  const showAll = params.get('all') === '1';
  const shown = showAll ? topics : topics.filter((t) => t.kind === 'normal');
  const form = actionForm(
    { id: 'topic-form' },
    [
      field('Topic', h('input', { name: 'topic', required: true, id: 'topic-name' })),
      field(
        'Queues',
        h('input', { name: 'queueNums', type: 'number', min: 1, value: 8, id: 'topic-queues' }),
      ),
      field(
        'Perm',
        h(
          'select',
          { name: 'perm' },
          h('option', { value: 6 }, 'RW'),
          h('option', { value: 4 }, 'R'),
          h('option', { value: 2 }, 'W'),
        ),
      ),
    ],
    'Create / update',
    async (data) => {
      const n = Number(data.get('queueNums'));
      const r = await post('/api/topic/update', {
        topic: data.get('topic'),
        readQueueNums: n,
        writeQueueNums: n,
        perm: Number(data.get('perm')),
      });
      setTimeout(render, 0);
      return `saved on ${r.brokers.join(', ')}`;
    },
  );
  return [
    h('h2', {}, `Topics (${shown.length})`),
    form,
    h(
      'p',
      {},
      link(
        showAll ? '#/topics' : '#/topics?all=1',
        showAll ? 'hide retry, DLQ and system topics' : 'show retry, DLQ and system topics',
      ),
    ),
    errors.map((e) => h('p', { class: 'error' }, `${e.brokerName}: ${e.error}`)),
    table(
      ['Topic', 'Kind', 'Read queues', 'Write queues', 'Perm', 'Brokers'],
      shown.map((t) =>
        h(
          'tr',
          { 'data-topic': t.topic },
          h('td', {}, link(hashOf('topic', { topic: t.topic }), t.topic)),
          h('td', {}, t.kind),
          h('td', { class: 'num read-queues' }, t.readQueueNums),
          h('td', { class: 'num write-queues' }, t.writeQueueNums),
          h('td', {}, t.perm),
          h('td', {}, t.brokers.join(', ')),
        ),
      ),
      { id: 'topics' },
    ),
  ];
}

async function topicView(params) {
  const t = await get('/api/topic', { topic: params.get('topic') });
  return [
    h('h2', {}, `Topic ${t.topic}`),
    h('h3', {}, 'Queues'),
    table(
      ['Broker', 'Queue', 'Min offset', 'Max offset', 'Messages', 'Last stored'],
      t.queues.map((q) => [
        q.brokerName,
        q.queueId,
        q.minOffset,
        q.maxOffset,
        num(q.maxOffset - q.minOffset),
        time(q.lastUpdateTimestamp),
      ]),
      { id: 'topic-queues-table' },
    ),
    h('h3', {}, 'Route'),
    table(
      ['Broker', 'Read queues', 'Write queues', 'Perm', 'Addresses'],
      t.route.queueDatas.map((q) => {
        const b = t.route.brokerDatas.find((x) => x.brokerName === q.brokerName);
        return [
          q.brokerName,
          q.readQueueNums,
          q.writeQueueNums,
          q.perm,
          b
            ? Object.entries(b.brokerAddrs)
                .map(([id, a]) => `${id}: ${a}`)
                .join(', ')
            : '-',
        ];
      }),
    ),
    h('h3', {}, 'Consumer groups'),
    h(
      'ul',
      {},
      t.consumerGroups.map((g) => h('li', {}, link(hashOf('group', { group: g }), g))),
    ),
    h('h3', {}, 'Messages'),
    h('p', {}, link(hashOf('messages', { topic: t.topic }), 'search the last hour')),
    h('h3', {}, 'Delete'),
    actionForm({ id: 'delete-topic' }, [], 'Delete topic', async () => {
      if (!confirm(`Delete topic ${t.topic} from every broker and name server, with its messages?`))
        return 'kept';
      await post('/api/topic/delete', { topic: t.topic });
      location.hash = '#/topics';
      return 'deleted';
    }),
  ];
}

async function groupsView(params) {
  const { groups, errors } = await get('/api/groups');
  const showAll = params.get('all') === '1';
  const shown = showAll ? groups : groups.filter((g) => g.kind === 'normal');
  return [
    h('h2', {}, `Consumer groups (${shown.length})`),
    h(
      'p',
      {},
      link(showAll ? '#/groups' : '#/groups?all=1', showAll ? 'hide system groups' : 'show system groups'),
    ),
    errors.map((e) => h('p', { class: 'error' }, `${e.brokerName}: ${e.error}`)),
    table(
      ['Group', 'Lag', 'Consume TPS', 'Brokers'],
      shown.map((g) =>
        h(
          'tr',
          { 'data-group': g.group },
          h('td', {}, link(hashOf('group', { group: g.group }), g.group)),
          h('td', { class: 'num lag' }, g.lag === null ? '-' : g.lag),
          h('td', { class: 'num' }, num(g.consumeTps, 1)),
          h('td', {}, g.brokers.join(', ')),
        ),
      ),
      { id: 'groups' },
    ),
  ];
}

async function groupView(params) {
  const name = params.get('group');
  const g = await get('/api/group', { group: name });
  const reset = actionForm(
    { id: 'reset-form' },
    [
      field(
        'Topic',
        h(
          'select',
          { name: 'topic' },
          // The group's own topics first: its %RETRY% topic is rarely the one to reset.
          [...new Set(g.queues.map((q) => q.topic))]
            .sort((a, b) => Number(a.startsWith('%')) - Number(b.startsWith('%')) || a.localeCompare(b))
            .map((t) => h('option', { value: t }, t)),
        ),
      ),
      field('Time (local)', h('input', { name: 'time', type: 'datetime-local', required: true })),
    ],
    'Reset offset',
    async (data) => {
      const r = await post('/api/group/reset-offset', {
        group: name,
        topic: data.get('topic'),
        timestamp: new Date(data.get('time')).getTime(),
      });
      setTimeout(render, 0);
      return `reset ${r.queues.length} queues`;
    },
  );
  return [
    h('h2', {}, `Consumer group ${g.group}`),
    h(
      'p',
      {},
      'Total lag: ',
      h('strong', { id: 'group-lag' }, g.totalLag),
      // In flight: popped (POP) and neither acked nor back in the retry topic yet; 4.x brokers don't say.
      ' · in flight: ',
      h(
        'strong',
        { id: 'group-inflight' },
        g.queues.some((q) => q.inflight !== null) ? g.totalInflight : '-',
      ),
      ` · consume TPS ${num(g.consumeTps, 1)} · ${g.messageModel ?? ''} ${g.consumeType ?? ''}`,
    ),
    g.errors.map((e) => h('p', { class: 'error' }, e)),
    h('h3', {}, `Members (${g.members.length})`),
    table(
      ['Client id', 'Address', 'Language', 'Version'],
      g.members.map((m) => [m.clientId, m.clientAddr, m.language, m.version]),
      { id: 'members' },
    ),
    h('h3', {}, 'Subscriptions'),
    table(
      ['Topic', 'Type', 'Expression'],
      g.subscriptions.map((s) => [s.topic, s.expressionType, s.subString]),
    ),
    h('h3', {}, 'Progress per queue'),
    table(
      ['Topic', 'Broker', 'Queue', 'Broker offset', 'Consumer offset', 'Lag', 'In flight', 'Last consumed'],
      g.queues.map((q) => [
        q.topic,
        q.brokerName,
        q.queueId,
        q.brokerOffset,
        q.consumerOffset,
        q.lag,
        q.inflight === null ? '-' : q.inflight,
        time(q.lastTimestamp),
      ]),
      { id: 'group-queues' },
    ),
    h('h3', {}, 'Reset offset to a time'),
    reset,
    h('h3', {}, 'Delete'),
    actionForm({ id: 'delete-group' }, [], 'Delete group', async () => {
      if (!confirm(`Delete consumer group ${g.group} and its offsets from every master broker?`))
        return 'kept';
      await post('/api/group/delete', { group: g.group });
      location.hash = '#/groups';
      return 'deleted';
    }),
  ];
}

async function producersView(params) {
  const out = h('div', { id: 'producers-result' });
  const form = actionForm(
    {},
    [
      field(
        'Producer group',
        h('input', { name: 'group', required: true, value: params.get('group') ?? '' }),
      ),
      field('Topic', h('input', { name: 'topic', required: true, value: params.get('topic') ?? '' })),
    ],
    'Find',
    async (data) => {
      const r = await get('/api/producers', { group: data.get('group'), topic: data.get('topic') });
      out.replaceChildren(
        table(
          ['Client id', 'Address', 'Language', 'Version'],
          r.producers.map((p) => [p.clientId, p.clientAddr, p.language, p.version]),
        ),
      );
      return `${r.producers.length} online`;
    },
  );
  return [h('h2', {}, 'Producers'), form, out];
}

function messageRows(messages) {
  return table(
    ['Message id', 'Tags', 'Keys', 'Broker', 'Queue', 'Offset', 'Stored', 'Size'],
    messages.map((m) => [
      link(hashOf('message', { msgId: m.msgId, topic: m.topic }), m.msgId),
      m.tags ?? '',
      m.keys ?? '',
      m.brokerName ?? '',
      m.queueId,
      m.queueOffset,
      time(m.storeTimestamp),
      m.bodySize,
    ]),
    { id: 'messages' },
  );
}

async function messagesView(params) {
  const out = h('div', { id: 'messages-result' });
  const local = (ms) => new Date(ms - new Date().getTimezoneOffset() * 60000).toISOString().slice(0, 16);
  const now = Date.now();
  const byTime = actionForm(
    { id: 'search-time' },
    [
      field('Topic', h('input', { name: 'topic', required: true, value: params.get('topic') ?? '' })),
      field('From', h('input', { name: 'begin', type: 'datetime-local', value: local(now - 3600_000) })),
      field('To', h('input', { name: 'end', type: 'datetime-local', value: local(now + 60_000) })),
    ],
    'Search by time',
    async (data) => {
      const r = await get('/api/messages/by-topic', {
        topic: data.get('topic'),
        begin: new Date(data.get('begin')).getTime(),
        end: new Date(data.get('end')).getTime(),
      });
      out.replaceChildren(messageRows(r.messages));
      return `${r.messages.length} messages${r.truncated ? ' (more not shown)' : ''}`;
    },
  );
  const byKey = actionForm(
    { id: 'search-key' },
    [
      field('Topic', h('input', { name: 'topic', required: true })),
      field('Key', h('input', { name: 'key', required: true })),
    ],
    'Search by key',
    async (data) => {
      const r = await get('/api/messages/by-key', { topic: data.get('topic'), key: data.get('key') });
      out.replaceChildren(messageRows(r.messages));
      return `${r.messages.length} messages`;
    },
  );
  const byId = actionForm(
    { id: 'search-id' },
    [
      field('Topic (for a client msgId)', h('input', { name: 'topic' })),
      field('Message id', h('input', { name: 'msgId', required: true })),
    ],
    'Find by id',
    async (data) => {
      location.hash = hashOf('message', { msgId: data.get('msgId'), topic: data.get('topic') });
      return '';
    },
  );
  return [h('h2', {}, 'Messages'), byTime, byKey, byId, out];
}

async function messageView(params) {
  const m = await get('/api/message', { msgId: params.get('msgId'), topic: params.get('topic') ?? '' });
  return [
    h('h2', {}, 'Message ', h('code', {}, m.msgId)),
    table(
      ['Field', 'Value'],
      [
        ['Topic', m.topic],
        ['Tags', m.tags ?? ''],
        ['Keys', m.keys ?? ''],
        ['Offset message id', m.offsetMsgId],
        ['Broker / queue / offset', `${m.brokerName ?? '-'} / ${m.queueId} / ${m.queueOffset}`],
        ['Born', `${time(m.bornTimestamp)} from ${m.bornHost}`],
        ['Stored', `${time(m.storeTimestamp)} on ${m.storeHost}`],
        ['Reconsume times', m.reconsumeTimes],
      ],
    ),
    h('h3', {}, 'Properties'),
    table(['Name', 'Value'], Object.entries(m.properties), { id: 'properties' }),
    h('h3', {}, `Body (${m.body.size} bytes${m.body.truncated ? ', preview' : ''})`),
    h('pre', { class: 'body', id: 'message-body' }, m.body.text),
    h('h3', {}, 'Consumed by'),
    table(
      ['Group', 'Track', 'Detail'],
      m.track.map((t) => [t.consumerGroup, t.trackType, t.exceptionDesc ?? '']),
      { id: 'track' },
    ),
  ];
}

const VIEWS = {
  cluster: clusterView,
  topics: topicsView,
  topic: topicView,
  groups: groupsView,
  group: groupView,
  producers: producersView,
  messages: messagesView,
  message: messageView,
};

async function render() {
  clearInterval(tpsTimer);
  const [path, query] = location.hash.replace(/^#\/?/, '').split('?');
  const name = VIEWS[path] ? path : 'cluster';
  for (const a of document.querySelectorAll('header nav a'))
    a.classList.toggle('active', a.getAttribute('href') === `#/${name}`);
  status.textContent = 'loading…';
  try {
    const nodes = await VIEWS[name](new URLSearchParams(query ?? ''));
    main.replaceChildren(...[nodes].flat(2).filter((n) => n));
    status.textContent = '';
    document.body.dataset.view = name;
  } catch (error) {
    main.replaceChildren(showError(error));
    status.textContent = '';
  }
}

window.addEventListener('hashchange', render);
render();
