// Calibration page: four draggable corners over the live picture, the grid drawn through them, the checklist.
'use strict';

(() => {
  const root = document.getElementById('cal');
  const board = root.dataset.board;
  const tokenRequired = root.dataset.tokenRequired === 'true';
  const img = document.getElementById('cal-frame');
  const svg = document.getElementById('cal-overlay');
  const NS = 'http://www.w3.org/2000/svg';
  const NAMES = ['a1', 'h1', 'h8', 'a8'];
  let corners = null;          // [[x, y] × 4] in picture pixels, in a1 h1 h8 a8 order
  let size = null;             // [w, h] of the picture
  const $ = (id) => document.getElementById(id);

  function say(text) { $('cal-msg').textContent = text; }
  function token() { try { return sessionStorage.getItem('dama.token') || ''; } catch (e) { return ''; } }

  // Homography of the unit square onto the quad (a1 = (0,0), h1 = (1,0), h8 = (1,1), a8 = (0,1)).
  function squareToQuad(q) {
    const [[x0, y0], [x1, y1], [x2, y2], [x3, y3]] = q;
    const dx1 = x1 - x2, dx2 = x3 - x2, dx3 = x0 - x1 + x2 - x3;
    const dy1 = y1 - y2, dy2 = y3 - y2, dy3 = y0 - y1 + y2 - y3;
    let g = 0, h = 0;
    if (Math.abs(dx3) > 1e-9 || Math.abs(dy3) > 1e-9) {
      const den = dx1 * dy2 - dx2 * dy1;
      g = (dx3 * dy2 - dx2 * dy3) / den;
      h = (dx1 * dy3 - dx3 * dy1) / den;
    }
    const a = x1 - x0 + g * x1, b = x3 - x0 + h * x3, d = y1 - y0 + g * y1, e = y3 - y0 + h * y3;
    return (u, v) => {
      const w = g * u + h * v + 1;
      return [(a * u + b * v + x0) / w, (d * u + e * v + y0) / w];
    };
  }

  function el(name, attrs) {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  }

  function draw() {
    if (!corners || !size) return;
    svg.setAttribute('viewBox', `0 0 ${size[0]} ${size[1]}`);
    svg.replaceChildren();
    const map = squareToQuad(corners);
    const pts = (list) => list.map(([u, v]) => map(u, v).join(',')).join(' ');
    svg.appendChild(el('polygon', { class: 'cal-a1', points: pts([[0, 0], [1 / 8, 0], [1 / 8, 1 / 8], [0, 1 / 8]]) }));
    for (let i = 0; i <= 8; i++) {
      svg.appendChild(el('polyline', { class: 'cal-grid', points: pts([[i / 8, 0], [i / 8, 1]]) }));
      svg.appendChild(el('polyline', { class: 'cal-grid', points: pts([[0, i / 8], [1, i / 8]]) }));
    }
    const r = Math.max(8, Math.min(size[0], size[1]) / 40);
    corners.forEach(([x, y], i) => {
      const handle = el('circle', { class: 'cal-handle', cx: x, cy: y, r, tabindex: 0, role: 'slider',
        'aria-label': `corner ${NAMES[i]}`, 'aria-valuetext': `${NAMES[i]} at ${Math.round(x)}, ${Math.round(y)}`,
        'data-index': i });
      svg.appendChild(handle);
      const label = el('text', { class: 'cal-label', x: x + r * 1.2, y: y - r * 1.2 });
      label.textContent = NAMES[i];
      svg.appendChild(label);
    });
  }

  function toPicture(evt) {
    const m = svg.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(evt.clientX, evt.clientY).matrixTransform(m.inverse());
    return [Math.max(0, Math.min(size[0], p.x)), Math.max(0, Math.min(size[1], p.y))];
  }

  let dragging = null;
  svg.addEventListener('pointerdown', (evt) => {
    const i = evt.target.dataset && evt.target.dataset.index;
    if (i === undefined) return;
    dragging = Number(i);
    svg.setPointerCapture(evt.pointerId);
    evt.preventDefault();
  });
  svg.addEventListener('pointermove', (evt) => {
    if (dragging === null) return;
    const p = toPicture(evt);
    if (p) { corners[dragging] = p; draw(); }
  });
  const stop = () => {
    if (dragging !== null) { const i = dragging; dragging = null; draw(); svg.querySelector(`[data-index="${i}"]`).focus(); }
  };
  svg.addEventListener('pointerup', stop);
  svg.addEventListener('pointercancel', stop);
  svg.addEventListener('keydown', (evt) => {
    const i = evt.target.dataset && evt.target.dataset.index;
    if (i === undefined) return;
    const step = evt.shiftKey ? 10 : 1;
    const move = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] }[evt.key];
    if (!move) return;
    evt.preventDefault();
    corners[i] = [corners[i][0] + move[0], corners[i][1] + move[1]];
    draw();
    svg.querySelector(`[data-index="${i}"]`).focus();
  });

  async function api(path, body) {
    const opts = body === undefined ? {} : {
      method: 'POST', body: JSON.stringify({ board, ...body }),
      headers: { 'Content-Type': 'application/json', ...(token() ? { 'X-Control-Token': token() } : {}) },
    };
    const sep = path.includes('?') ? '&' : '?';
    const r = await fetch(body === undefined ? `${path}${sep}board=${encodeURIComponent(board)}` : path, opts);
    const data = await r.json().catch(() => ({}));
    if (r.status === 401) { $('token-row').hidden = false; $('token').focus(); }
    if (!r.ok) throw new Error(data.error || `request failed (${r.status})`);
    return data;
  }

  function showCheck(data) {
    const list = $('cal-checklist');
    list.replaceChildren(...data.checklist.map((item) => {
      const li = document.createElement('li');
      li.className = item.ok === true ? 'ok' : item.ok === false ? 'bad' : 'advice';  // not 'skip': the skip link's class
      li.textContent = `${item.name}: ${item.detail}`;
      return li;
    }));
    $('cal-problems').replaceChildren(...(data.problems || []).map((p) => {
      const li = document.createElement('li');
      li.textContent = p.message;
      return li;
    }));
    if (data.suggested && !corners) { corners = NAMES.map((n) => data.suggested[n]); draw(); }
    say(data.ok ? 'All checks passed: ready to play.' : 'Some checks need attention (see the list).');
  }

  function useState(state) {
    if (state.corners) corners = NAMES.map((n) => state.corners[n]);
    $('white-side').value = state.white_side || '';
    draw();
  }

  async function guard(fn) {
    try { await fn(); } catch (e) { say(e.message); }
  }

  $('btn-check').addEventListener('click', () => guard(async () => { say('Checking…'); showCheck(await api('/api/calibration/check')); }));
  $('btn-auto').addEventListener('click', () => guard(async () => {
    corners = null;
    const data = await api('/api/calibration/check');
    if (data.suggested) { corners = NAMES.map((n) => data.suggested[n]); draw(); say('Corners found: check them, then Save corners.'); }
    else if (data.checklist.length && data.checklist[0].ok) { useState(await api('/api/calibration/state')); say('Using the saved corners.'); }
    else say('The board was not found: drag the corners by hand.');
  }));
  $('btn-save').addEventListener('click', () => guard(async () => {
    const side = $('white-side').value || null;
    const data = await api('/api/calibration/corners', { corners, white_side: side });
    useState(data);
    say(`Corners saved (${data.saved})${data.applied ? '' : '; restart dama watch to use them'}.`);
  }));
  $('btn-learn').addEventListener('click', () => guard(async () => {
    say('Learning colours…');
    showCheck(await api('/api/calibration/learn', {}));
  }));
  if (tokenRequired) {
    $('token-row').hidden = false;
    $('token').value = token();
    $('token').addEventListener('change', () => { try { sessionStorage.setItem('dama.token', $('token').value.trim()); } catch (e) { /* ignore */ } });
  }

  function start() {
    size = [img.naturalWidth, img.naturalHeight];
    if (!corners) corners = [[0.25, 0.75], [0.75, 0.75], [0.75, 0.25], [0.25, 0.25]].map(([u, v]) => [u * size[0], v * size[1]]);
    draw();
  }
  img.addEventListener('load', () => { if (!size || size[0] !== img.naturalWidth) start(); });
  guard(async () => useState(await api('/api/calibration/state')));
  const interval = Number(root.dataset.frameInterval) || 500;
  setInterval(() => {
    if (document.hidden || dragging !== null) return;
    const url = new URL(img.src, location.href);
    url.searchParams.set('t', Date.now());
    img.src = url.toString();
  }, Math.max(interval, 250));
})();
