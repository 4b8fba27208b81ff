// The board page: live board, moves, alerts, status, camera, controls, keyboard commands.
'use strict';

(() => {
  const app = document.getElementById('app');
  const board = app.dataset.board;
  const q = 'board=' + encodeURIComponent(board);
  const frameInterval = Math.max(100, Number(app.dataset.frameInterval) || 250);
  const tokenRequired = app.dataset.tokenRequired === 'true';
  const $ = (id) => document.getElementById(id);
  let snapshot = null;

  // ---- rendering --------------------------------------------------------------------------------
  function renderStatus(s) {
    const st = s.status || {};
    const el = $('status');
    el.dataset.state = st.state || 'waiting';
    const [icon, text] = Dama.stateLabel(st.state);
    el.querySelector('.status-icon').textContent = icon;
    const RESULTS = { '1-0': 'White wins', '0-1': 'Black wins', '1/2-1/2': 'draw' };
    el.querySelector('.status-text').textContent = s.result
      ? 'Game over: ' + (RESULTS[s.result] || s.result) + (s.result_reason ? ' (' + s.result_reason + ')' : '')
      : text;
    $('turn').textContent = (s.turn && st.state !== 'game_over') ? (s.turn === 'white' ? 'White to move' : 'Black to move') : '';
  }

  function renderAlerts(s) {
    const list = $('alert-list');
    list.replaceChildren();
    const alerts = s.alerts || [];
    $('alerts').dataset.open = alerts.length ? 'true' : 'false';
    if (!alerts.length) {
      const li = document.createElement('li');
      li.className = 'none';
      li.textContent = 'No open alerts.';
      list.append(li);
      return;
    }
    for (const a of alerts) {
      const li = document.createElement('li');
      li.className = 'alert';
      const head = document.createElement('strong');
      head.innerHTML = '<span aria-hidden="true">⚠ </span>';
      head.append(document.createTextNode(a.title || (a.kind || 'violation').replace(/_/g, ' ')));
      li.append(head);
      const side = a.side ? (a.side[0].toUpperCase() + a.side.slice(1)) : '';
      const said = a.message && side && !a.message.toLowerCase().startsWith(a.side) ? side + ': ' + a.message : a.message;
      if (said) li.append(el('p', said));
      if (a.squares && a.squares.length) li.append(el('p', 'Squares (crossed on the board): ' + a.squares.join(', ')));
      if (a.legal && a.legal.length) li.append(el('p', 'Legal: ' + a.legal.join(', ')));
      list.append(li);
    }
  }

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  function renderMoves(s) {
    const body = $('moves').querySelector('tbody');
    const rows = new Map();
    for (const m of s.moves || []) {
      const n = Math.ceil(m.ply / 2);
      if (!rows.has(n)) rows.set(n, { white: '', black: '' });
      rows.get(n)[m.side === 'black' ? 'black' : 'white'] = m.move;
    }
    body.replaceChildren();
    for (const [n, r] of rows) {
      const tr = document.createElement('tr');
      tr.append(el('th', n + '.'), el('td', r.white || '…'), el('td', r.black));
      tr.firstChild.scope = 'row';
      body.append(tr);
    }
    const scroll = body.closest('.moves-scroll');
    scroll.scrollTop = scroll.scrollHeight;
    const res = $('result');
    res.hidden = !s.result;
    res.textContent = s.result ? 'Result: ' + s.result : '';
  }

  // The frame source's last word (lost, reconnecting, ended) and the frame rate, when the companion says.
  function renderSource(s) {
    const parts = [];
    const src = s.source || {};
    if (src.message) parts.push(src.message);
    else if (src.name) parts.push(src.name);
    if (s.fps) parts.push(s.fps + ' frames per second');
    if ((s.masked || []).length) parts.push('read from the game, not the camera: ' + s.masked.join(', '));
    if (s.vision_errors) parts.push(s.vision_errors + (s.vision_errors === 1 ? ' frame' : ' frames') + ' skipped: vision failed on them (see the log)');
    $('camera-info').textContent = parts.join(' · ');
  }

  function renderControls(s) {
    const hasMoves = (s.moves || []).length > 0;
    const hasAlerts = (s.alerts || []).length > 0;
    for (const b of document.querySelectorAll('button[data-action]')) {
      const a = b.dataset.action;
      const off = (a === 'takeback' && !hasMoves) || (a === 'accept' && !hasAlerts);
      b.setAttribute('aria-disabled', off ? 'true' : 'false');
    }
  }

  const refresh = Dama.coalesced(async () => {
    const [s, svg] = await Promise.all([
      Dama.getJSON('/api/state?' + q),
      fetch('/api/board.svg?size=560&' + q, { cache: 'no-store' }).then((r) => (r.ok ? r.text() : '')),
    ]);
    snapshot = s;
    if (svg) $('board').innerHTML = svg;
    renderStatus(s); renderAlerts(s); renderMoves(s); renderControls(s); renderSource(s);
    document.body.dataset.ready = 'true';
  });

  // ---- camera: fetched only while the page and the image are visible ------------------------------
  let cameraOn = true, cameraInView = true, lastUrl = null;
  const cam = $('camera');
  if ('IntersectionObserver' in window) {
    new IntersectionObserver((entries) => { cameraInView = entries[0].isIntersecting; }).observe($('camera-fig'));
  }
  async function cameraLoop() {
    for (;;) {
      if (cameraOn && cameraInView && document.visibilityState === 'visible') {
        try {
          const r = await fetch('/api/frame.jpg?' + q, { cache: 'no-store' });
          if (r.status === 200) {
            const url = URL.createObjectURL(await r.blob());
            cam.src = url;
            if (lastUrl) URL.revokeObjectURL(lastUrl);
            lastUrl = url;
            cam.hidden = false; $('camera-none').hidden = true;
          } else {
            cam.hidden = true; $('camera-none').hidden = false;
          }
        } catch (e) { /* server gone for a moment: try again */ }
      }
      await new Promise((res) => setTimeout(res, frameInterval));
    }
  }
  $('camera-toggle').addEventListener('click', (ev) => {
    cameraOn = !cameraOn;
    ev.currentTarget.setAttribute('aria-pressed', String(cameraOn));
    ev.currentTarget.textContent = cameraOn ? 'Hide' : 'Show';
    $('camera-fig').hidden = !cameraOn;
  });

  // ---- controls ---------------------------------------------------------------------------------
  function token() {
    try { return sessionStorage.getItem('dama.token') || ''; } catch (e) { return ''; }
  }
  (function takeTokenFromUrl() {
    const url = new URL(location.href);
    const t = url.searchParams.get('token');
    if (t) {
      try { sessionStorage.setItem('dama.token', t); } catch (e) { /* ignore */ }
      url.searchParams.delete('token');
      history.replaceState(null, '', url.pathname + url.search + url.hash);
    }
    if (tokenRequired) {
      $('token-row').hidden = false;
      $('token').value = token();
      const save = () => {
        try { sessionStorage.setItem('dama.token', $('token').value.trim()); } catch (e) { /* ignore */ }
      };
      $('token').addEventListener('change', save);
      $('token-row').addEventListener('submit', (ev) => { ev.preventDefault(); save(); });
    }
  })();

  // Asks before an action: resolves to null (cancelled), 'ok', or the chosen side to move ('white' or
  // 'black') when the button asks for one (data-choose-turn). One question at a time: Escape answers at
  // once through the 'cancel' event; the 'close' event comes later and may arrive after the next question
  // has opened the dialog again, so a close while the dialog is open is not an answer.
  const ANSWERS = ['ok', 'white', 'black'];
  let pendingAnswer = null;
  function answer(value) {
    const resolve = pendingAnswer;
    pendingAnswer = null;
    if (resolve) resolve(value);
  }
  $('confirm').addEventListener('cancel', () => answer(null));
  $('confirm').addEventListener('close', () => {
    const dlg = $('confirm');
    if (!dlg.open) answer(ANSWERS.includes(dlg.returnValue) ? dlg.returnValue : null);
  });

  function confirmFirst(button) {
    const dlg = $('confirm');
    const text = button.dataset.confirm;
    if (!text || typeof dlg.showModal !== 'function') return Promise.resolve('ok');
    answer(null);  // a question still open is dropped
    const chooseTurn = 'chooseTurn' in button.dataset;
    $('confirm-text').textContent = text;
    for (const b of dlg.querySelectorAll('.turn-choice')) b.hidden = !chooseTurn;
    dlg.querySelector('button[value=ok]').hidden = chooseTurn;
    return new Promise((resolve) => {
      pendingAnswer = resolve;
      dlg.returnValue = 'cancel';
      dlg.showModal();
    });
  }

  async function control(button) {
    if (button.getAttribute('aria-disabled') === 'true') {
      const why = button.dataset.action === 'accept' ? 'There is no open alert to accept.' : 'There is no move to take back.';
      $('control-msg').textContent = why;
      Dama.announce(why, 'polite');
      return;
    }
    const answer = await confirmFirst(button);
    if (answer === null) { button.focus(); return; }
    const request = { action: button.dataset.action, board };
    if (answer === 'white' || answer === 'black') request.turn = answer;
    if ('askSquares' in button.dataset) {
      // Squares read from the game instead of the camera (a shadow, a printed marker); empty: none.
      const now = ((snapshot && snapshot.masked) || []).join(' ');
      const given = window.prompt('Squares the camera misreads, read from the game instead (e.g. "e5 a1"; empty for none):', now);
      if (given === null) { button.focus(); return; }
      request.squares = given;
    }
    const headers = { 'Content-Type': 'application/json' };
    if (token()) headers['X-Control-Token'] = token();
    let text, needToken = false;
    try {
      const r = await fetch('/api/control', { method: 'POST', headers, body: JSON.stringify(request) });
      const body = await r.json().catch(() => ({}));
      text = r.ok ? (body.message || button.textContent.trim() + ': done.') : 'Refused: ' + (body.error || r.statusText);
      needToken = r.status === 401;
    } catch (e) {
      text = 'The server did not answer: ' + e.message;
    }
    $('control-msg').textContent = text;
    if (needToken) { $('token-row').hidden = false; $('token').focus(); } else button.focus();
    refresh();
  }
  for (const b of document.querySelectorAll('button[data-action]')) b.addEventListener('click', () => control(b));

  // ---- keyboard commands ------------------------------------------------------------------------
  const COMMANDS = {
    l: ['last_move'], last: ['last_move'], c: ['last_capture'], capture: ['last_capture'],
    p: ['position'], position: ['position'], w: ['side', 'white'], white: ['side', 'white'],
    b: ['side', 'black'], black: ['side', 'black'], x: ['captures'], captures: ['captures'],
    s: ['status'], status: ['status'], r: ['repeat'], repeat: ['repeat'], '?': ['help'], help: ['help'],
  };

  function parseCommand(text) {
    const t = text.trim().toLowerCase();
    const rank = t.match(/^(?:rank\s*)?([1-8])$/);
    if (rank) return ['rank', rank[1]];
    return COMMANDS[t] || null;
  }

  async function run(cmd) {
    const [what, arg] = cmd;
    if (what === 'repeat') return Dama.repeat();
    if (what === 'help') {
      const h = $('help');
      h.open = !h.open;
      if (h.open) h.querySelector('summary').focus();
      return;
    }
    const url = '/api/read?' + q + '&what=' + what + (arg ? '&arg=' + encodeURIComponent(arg) : '');
    try {
      const body = await Dama.getJSON(url);
      Dama.announce(body.text, 'polite');
    } catch (e) {
      Dama.announce('Cannot read that now: ' + e.message, 'polite');
    }
  }

  document.addEventListener('keydown', (ev) => {
    if (ev.ctrlKey || ev.altKey || ev.metaKey || ev.defaultPrevented) return;
    const t = ev.target;
    if (t.closest && t.closest('input, textarea, select, dialog')) return;
    const cmd = parseCommand(ev.key);
    if (!cmd || (ev.key.length !== 1)) return;
    ev.preventDefault();
    run(cmd);
  });

  $('command-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const input = $('command');
    const cmd = parseCommand(input.value);
    if (cmd) run(cmd);
    else Dama.announce('Unknown command "' + input.value + '". Type ? for the list.', 'polite');
    input.value = '';
  });

  // ---- start --------------------------------------------------------------------------------------
  Dama.connect('/api/events?' + q, () => refresh(), () => refresh());
  refresh();
  cameraLoop();
})();
