// The overview of several boards: each card follows its board's events.
'use strict';

(() => {
  const cards = new Map();
  for (const card of document.querySelectorAll('.card[data-board]')) {
    cards.set(card.dataset.board, { card, refresh: Dama.coalesced(() => refreshCard(card)) });
  }

  async function refreshCard(card) {
    const board = card.dataset.board;
    const q = 'board=' + encodeURIComponent(board);
    const s = await Dama.getJSON('/api/state?' + q);
    const img = card.querySelector('img');
    img.src = '/api/board.svg?size=320&' + q + '&v=' + Date.now();
    const st = s.status || {};
    const alerts = (s.alerts || []).length;
    const [icon, text] = Dama.stateLabel(st.state);
    card.dataset.state = st.state || '';
    card.dataset.alert = alerts ? 'true' : 'false';
    card.querySelector('.status-icon').textContent = alerts ? '⚠' : icon;
    card.querySelector('.status-text').textContent = alerts ? alerts + ' alert' + (alerts > 1 ? 's' : '') + ' · ' + text : text;
    const moves = s.moves || [];
    const last = moves[moves.length - 1];
    card.querySelector('.card-last').textContent = s.result ? 'Result ' + s.result
      : last ? 'Last: ' + Math.ceil(last.ply / 2) + '. ' + last.side + ' ' + last.move : 'No move yet.';
  }

  function refreshAll() { for (const c of cards.values()) c.refresh(); }

  Dama.connect('/api/events', (event) => {
    const c = cards.get(String(event.board));
    if (c) c.refresh(); else refreshAll();
  }, refreshAll, true);
})();
