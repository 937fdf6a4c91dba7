// Wheel zoom, drag pan, a reset button and quicker tooltips for the timeline's SVG. Zoom and pan
// change the plot's viewBox horizontally (bars scale, strokes do not); the texts live outside the
// plot and are moved by `layout()`, so they never stretch. __CONFIG__ is replaced by html_view.py.
(function () {
  var C = __CONFIG__;
  function start(tries) {
    var root = document.getElementById(C.id);
    if (!root) { if (tries < 100) { setTimeout(function () { start(tries + 1); }, 50); } return; }
    if (root.getAttribute('data-live')) { return; }
    root.setAttribute('data-live', '1');
    init(root);
  }
  function init(root) {
    var svg = root.querySelector('svg.xtl-svg'), plot = svg.querySelector('svg.xtl-plot');
    var NS = svg.namespaceURI, PW = C.plotW, PX = C.plotX;
    var grid = svg.querySelector('g.xtl-grid'), axis = svg.querySelector('g.xtl-axis');
    var labels = Array.prototype.slice.call(svg.querySelectorAll('text.xtl-label'));
    var lineLabels = Array.prototype.slice.call(svg.querySelectorAll('text.xtl-linelabel'));
    var gapLabel = svg.querySelector('text.xtl-gaplabel');
    var thin = Array.prototype.slice.call(plot.querySelectorAll('.xtl-thin'));
    var tip = root.querySelector('.xtl-tip');
    var minVw = Math.max(PW * C.minSpanNs / C.windowNs, PW * 1e-6);
    var vx = 0, vw = PW, drag = null;
    root.querySelector('.xtl-controls').style.display = '';

    function px(u) { return (u - vx) * PW / vw; }
    function show(el, on) { if (on) { el.removeAttribute('display'); } else { el.setAttribute('display', 'none'); } }
    function fit(name, width) {
      var chars = Math.floor((width - 6) / C.charW);
      if (chars < 3) { return ''; }
      return name.length <= chars ? name : name.slice(0, chars - 1) + '\u2026';
    }
    function niceStep(span) {
      var raw = Math.max(span / 8, 1), p = Math.pow(10, Math.floor(Math.log10(raw) + 1e-9)), m = raw / p;
      return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
    }
    function tickLabel(t, step) {
      var units = [['s', 1e9], ['ms', 1e6], ['\u00b5s', 1e3]];
      for (var i = 0; i < units.length; i++) {
        if (step >= units[i][1]) {
          var d = Math.max(0, -Math.floor(Math.log10(step / units[i][1]) + 1e-9));
          return (t / units[i][1]).toFixed(d) + ' ' + units[i][0];
        }
      }
      return t.toFixed(0) + ' ns';
    }
    function el(name, attrs, text) {
      var e = document.createElementNS(NS, name);
      for (var k in attrs) { e.setAttribute(k, attrs[k]); }
      if (text !== undefined) { e.textContent = text; }
      return e;
    }
    function drawAxis() {
      var nsPerUnit = C.windowNs / PW, t0 = vx * nsPerUnit, span = vw * nsPerUnit, step = niceStep(span);
      while (grid.firstChild) { grid.removeChild(grid.firstChild); }
      while (axis.firstChild) { axis.removeChild(axis.firstChild); }
      for (var t = Math.ceil(t0 / step) * step; t <= t0 + span + 1e-6; t += step) {
        var x = PX + (t - t0) / span * PW, p = x - PX;
        var anchor = p < 15 ? 'start' : p > PW - 15 ? 'end' : 'middle';
        axis.appendChild(el('text', {x: x, y: 14, 'text-anchor': anchor}, tickLabel(t, step)));
        axis.appendChild(el('line', {x1: x, x2: x, y1: C.axisH - 6, y2: C.axisH, stroke: '#8c959f'}));
        grid.appendChild(el('line', {x1: x, x2: x, y1: C.axisH, y2: C.axisH + C.lanesH, stroke: '#e6e8eb'}));
      }
    }
    function layout() {
      plot.setAttribute('viewBox', vx + ' 0 ' + vw + ' ' + C.lanesH);
      var minW = C.minBarPx * vw / PW;
      thin.forEach(function (r) { r.setAttribute('width', Math.max(+r.getAttribute('data-w'), minW)); });
      labels.forEach(function (t) {
        var a = Math.max(px(+t.getAttribute('data-a')), 0), b = Math.min(px(+t.getAttribute('data-b')), PW);
        var text = b > a ? fit(t.getAttribute('data-name'), b - a) : '';
        show(t, text !== '');
        if (text) { t.textContent = text; t.setAttribute('x', PX + a + 3); }
      });
      var last = -1e9;
      lineLabels.forEach(function (t) {
        var p = px(+t.getAttribute('data-a')), on = p >= 0 && p <= PW && p - last >= C.lineSpacing;
        show(t, on);
        if (on) { last = p; t.setAttribute('x', PX + p); }
      });
      if (gapLabel) {
        var a = Math.max(px(+gapLabel.getAttribute('data-a')), 0);
        var b = Math.min(px(+gapLabel.getAttribute('data-b')), PW);
        show(gapLabel, b > a);
        gapLabel.setAttribute('x', PX + Math.min(Math.max((a + b) / 2, 60), PW - 60));
      }
      drawAxis();
    }
    function clampView() {
      vw = Math.min(Math.max(vw, minVw), PW);
      vx = Math.min(Math.max(vx, 0), PW - vw);
    }
    function plotFraction(clientX) {
      var r = plot.getBoundingClientRect();
      return r.width > 0 ? Math.min(Math.max((clientX - r.left) / r.width, 0), 1) : 0.5;
    }
    svg.addEventListener('wheel', function (e) {
      var zoomingOut = e.deltaY > 0;
      if (zoomingOut && vw >= PW) { return; }  // fully zoomed out: let the page scroll
      e.preventDefault();
      var f = plotFraction(e.clientX), at = vx + f * vw;
      var scale = Math.exp(Math.max(Math.min(e.deltaY * (e.deltaMode === 1 ? 20 : 1), 300), -300) * 0.002);
      vw = vw * scale;
      clampView();
      vx = at - f * vw;
      clampView();
      layout();
    }, {passive: false});
    svg.addEventListener('mousedown', function (e) {
      if (e.button !== 0) { return; }
      e.preventDefault();
      drag = {x: e.clientX, vx: vx, width: plot.getBoundingClientRect().width || PW};
      svg.style.cursor = 'grabbing';
      tip.style.display = 'none';
    });
    window.addEventListener('mousemove', function (e) {
      if (!drag) { return; }
      vx = drag.vx - (e.clientX - drag.x) / drag.width * vw;
      clampView();
      layout();
    });
    window.addEventListener('mouseup', function () {
      if (drag) { drag = null; svg.style.cursor = ''; }
    });
    root.querySelector('.xtl-reset').addEventListener('click', function () {
      vx = 0; vw = PW; layout();
    });
    // A quicker tooltip than the native one: the <title> moves into data-tip on first hover,
    // so the browser's own tooltip does not show as well.
    svg.addEventListener('mouseover', function (e) {
      var t = e.target;
      if (drag || !t.getAttribute || t.getAttribute('class') === null) { return; }
      var title = t.querySelector && t.querySelector('title');
      if (title) { t.setAttribute('data-tip', title.textContent); t.removeChild(title); }
      var text = t.getAttribute('data-tip');
      if (!text) { return; }
      tip.textContent = text;
      tip.style.display = 'block';
    });
    svg.addEventListener('mousemove', function (e) {
      if (tip.style.display !== 'block') { return; }
      var r = root.getBoundingClientRect(), x = e.clientX - r.left + 14, y = e.clientY - r.top + 14;
      if (x + tip.offsetWidth > r.width) { x = Math.max(0, e.clientX - r.left - tip.offsetWidth - 10); }
      tip.style.left = x + 'px';
      tip.style.top = y + 'px';
    });
    svg.addEventListener('mouseout', function () { tip.style.display = 'none'; });
    layout();
  }
  start(0);
})();
