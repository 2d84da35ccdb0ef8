/* perfcast: the charts of a page are drawn one after another, each once the one before is on screen.
 *
 * dcc.Graph asks plotly.js to draw every chart of a page in the same task, so the browser shows none of
 * them until the last is drawn (0.1-0.2 s later on a page with three charts, in a new browser profile).
 * Here the first chart asked for is drawn at once; the others wait in order, one per frame, and each
 * caller gets plotly's own promise when its chart is drawn. A chart removed from the page while it
 * waits is not drawn. dashboard/ui/chart_order.py leaves this file out for PERFCAST_CHART_ORDER=together.
 */
(function () {
  "use strict";

  function afterPaint(fn) {
    var done = false;
    function go() {
      if (!done) { done = true; setTimeout(fn, 0); }
    }
    window.requestAnimationFrame(go);
    setTimeout(go, 50); /* a hidden tab has no frames */
  }

  function order(P) {
    if (!P || typeof P.react !== "function" || P.__perfcastOrdered) { return; }
    var react = P.react;
    var waiting = [];
    var busy = false; /* a chart was drawn in this frame, or charts are waiting */

    function next() {
      var job = waiting.shift();
      if (!job) { busy = false; return; }
      var gd = typeof job.args[0] === "string" ? document.getElementById(job.args[0]) : job.args[0];
      var out;
      try {
        out = gd && gd.isConnected === false ? gd : react.apply(P, job.args);
      } catch (err) {
        out = Promise.reject(err);
      }
      Promise.resolve(out).then(job.resolve, job.reject);
      afterPaint(next);
    }

    P.react = function () {
      var args = Array.prototype.slice.call(arguments);
      if (!busy) {
        busy = true;
        afterPaint(next);
        return react.apply(P, args);
      }
      return new Promise(function (resolve, reject) {
        waiting.push({args: args, resolve: resolve, reject: reject});
      });
    };
    P.__perfcastOrdered = true;
  }

  if (window.Plotly) {
    order(window.Plotly);
  } else { /* plotly.js loads after this file: order it as it arrives */
    var value;
    Object.defineProperty(window, "Plotly", {
      configurable: true,
      enumerable: true,
      get: function () { return value; },
      set: function (v) { value = v; order(v); }
    });
  }
})();
