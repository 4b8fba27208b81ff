// Applies the saved theme and text size before the page paints (no flash of the wrong theme).
'use strict';
(function () {
  var root = document.documentElement;
  try {
    root.dataset.theme = localStorage.getItem('dama.theme') || 'auto';
    root.dataset.text = localStorage.getItem('dama.large') === '1' ? 'large' : 'normal';
  } catch (e) { /* storage disabled: keep the defaults */ }
})();
