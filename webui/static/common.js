// Shared by the board page and the overview: display preferences, the live regions, the event stream.
'use strict';

const Dama = (() => {
  const MAX_LIVE = 6;

  function initPrefs() {
    const root = document.documentElement;
    const theme = document.getElementById('pref-theme');
    const large = document.getElementById('pref-large');
    if (theme) {
      theme.value = root.dataset.theme || 'auto';
      theme.addEventListener('change', () => {
        root.dataset.theme = theme.value;
        try { localStorage.setItem('dama.theme', theme.value); } catch (e) { /* ignore */ }
      });
    }
    if (large) {
      large.checked = root.dataset.text === 'large';
      large.addEventListener('change', () => {
        root.dataset.text = large.checked ? 'large' : 'normal';
        try { localStorage.setItem('dama.large', large.checked ? '1' : '0'); } catch (e) { /* ignore */ }
      });
    }
  }

  let lastSaid = '';

  // Every announcement is appended as its own paragraph, so a screen reader speaks each one even when
  // several arrive close together; old ones are pruned so the region stays small.
  function announce(text, politeness, lang) {
    if (!text) return;
    const region = document.getElementById(politeness === 'assertive' ? 'live-assertive' : 'live-polite');
    if (region) {
      const p = document.createElement('p');
      p.textContent = text;
      if (lang) p.lang = lang;
      region.appendChild(p);
      while (region.childElementCount > MAX_LIVE) region.firstElementChild.remove();
    }
    lastSaid = text;
    document.body.dataset.announced = String(Number(document.body.dataset.announced || 0) + 1);
    const log = document.getElementById('log');
    if (log) {
      const li = document.createElement('li');
      if (politeness === 'assertive') li.className = 'urgent';
      li.textContent = text;
      log.prepend(li);
      while (log.childElementCount > 8) log.lastElementChild.remove();
    }
  }

  function repeat() {
    if (lastSaid) announce(lastSaid, 'polite');
    else announce('Nothing has been announced yet.', 'polite');
  }

  function setConnected(ok) {
    const el = document.getElementById('conn');
    if (!el) return;
    el.dataset.ok = ok ? 'true' : 'false';
    el.querySelector('.conn-text').textContent = ok ? 'live' : 'reconnecting…';
  }

  // EventSource reconnects by itself; on every (re)open the page fetches the state afresh, so nothing
  // missed while disconnected is lost.
  // When the server refuses the stream (too many live pages) the browser gives up on it: the page
  // then polls the state every few seconds and tries the stream again later.
  function connect(url, onEvent, onOpen, labelBoards) {
    let es = null, poll = null;
    const open = () => {
      es = new EventSource(url);
      es.onopen = () => {
        if (poll) { clearInterval(poll); poll = null; }
        setConnected(true);
        onOpen();
      };
      es.onerror = () => {
        setConnected(false);
        if (es.readyState === EventSource.CLOSED && !poll) {
          poll = setInterval(onOpen, 3000);
          setTimeout(open, 30000);
        }
      };
      es.onmessage = (msg) => {
        let event;
        try { event = JSON.parse(msg.data); } catch (e) { return; }
        const label = labelBoards && event.board != null ? 'Board ' + event.board + ': ' : '';
        if (event.say) announce(label + event.say, event.politeness, event.lang);
        onEvent(event);
      };
    };
    open();
    window.addEventListener('pagehide', () => es && es.close());
  }

  async function getJSON(url) {
    const resp = await fetch(url, { cache: 'no-store' });
    const body = await resp.json().catch(() => ({}));
    if (!resp.ok) throw new Error(body.error || resp.statusText);
    return body;
  }

  // Coalesces bursts of refresh requests into one fetch at a time.
  function coalesced(fn) {
    let running = false, again = false;
    return async function run() {
      if (running) { again = true; return; }
      running = true;
      try { await fn(); } catch (e) { console.warn('refresh failed:', e.message); }
      running = false;
      if (again) { again = false; run(); }
    };
  }

  const STATE = {
    no_board: ['⊘', 'Board not found'],
    orientation_wrong: ['⟲', 'Board turned wrongly: a dark square must be at each player’s left (čl. 2.4)'],
    hand: ['☝', 'Hand over the board'],
    setting_up: ['⚙', 'Setting up: the board does not show the game’s position yet'],
    waiting: ['◷', 'Waiting for a move'],
    capture_pending: ['✂', 'Capture under way: remove the captured pieces'],
    game_over: ['⚑', 'Game over'],
  };

  function stateLabel(state) {
    return STATE[state] || ['•', state || 'unknown'];
  }

  document.addEventListener('DOMContentLoaded', initPrefs);
  return { announce, repeat, connect, getJSON, coalesced, stateLabel, setConnected };
})();
