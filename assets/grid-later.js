/* perfcast: AG Grid's code runs after the page's first chart, not before the page is laid out.
 *
 * Every page has grids, and Dash runs AG Grid's 1.3 MB script before it asks for the page's layout, then
 * renders the grids in the same task as the first chart. Here the page carries that script as an inert tag
 * (dashboard/ui/grid_loading.py gives it a type browsers do not run, so it is not even fetched), and
 * window.dash_ag_grid is a stand-in whose AgGrid draws an empty box of the grid's size. Once the page's
 * first chart is drawn (at once if its layout has none; at most 3 s after the first stand-in is on
 * screen), the real script is fetched and run; every stand-in then renders the real AgGrid with the props Dash gave
 * it. Dash keeps resolving window.dash_ag_grid.AgGrid to the stand-in, so React never swaps the component
 * under a grid. PERFCAST_GRID_LOADING=eager leaves this file out and runs the script as Dash does.
 */
(function () {
  "use strict";

  var NS = "dash_ag_grid";
  var tag = document.querySelector('script[data-perfcast-later="' + NS + '"]');
  if (!tag || !window.React) { return; } /* eager loading: nothing to stand in for */
  var React = window.React;

  var real = null; /* the library's namespace, once its script has run */
  var state = "idle"; /* idle, loading, ready, failed */
  var subscribers = new Set(); /* every mounted stand-in, and anyone waiting for the library */

  function subscribe(fn) {
    subscribers.add(fn);
    return function () { subscribers.delete(fn); };
  }

  function settle(next) {
    state = next;
    Array.from(subscribers).forEach(function (fn) { fn(); });
  }

  var scheduled = false;
  function schedule() {
    if (state === "failed") { load("retry"); return; }
    if (!scheduled) { scheduled = true; afterFirstChart(load); }
  }

  /* why: "chart" (the first chart was drawn), "no-chart" (the layout has none), "timeout", "retry", "api" */
  function load(why) {
    if (state === "loading" || state === "ready") { return; }
    state = "loading";
    window.__perfcastGridLoad = why;
    var s = document.createElement("script");
    s.src = tag.src;
    s.onload = function () { settle(real ? "ready" : "failed"); };
    s.onerror = function () { settle("failed"); };
    document.head.appendChild(s);
  }

  /* whether the page's layout holds a chart (Dash's store keeps the tree under layout.components) */
  function hasChart(node, depth) {
    if (!node || depth > 60) { return false; }
    if (Array.isArray(node)) {
      return node.some(function (n) { return hasChart(n, depth + 1); });
    }
    if (typeof node !== "object") { return false; }
    if (node.type === "Graph" && node.namespace === "dash_core_components") { return true; }
    return !!node.props && hasChart(node.props.children, depth + 1);
  }

  /* run fn once the page's first chart is drawn (at most WAIT_MS from now), or at once without charts */
  var WAIT_MS = window.__perfcastGridWaitMs || 3000;
  function afterFirstChart(fn) {
    var store = window.store && window.store.getState ? window.store.getState() : null;
    var layout = store && store.layout;
    var root = layout && typeof layout === "object" && "components" in layout ? layout.components : layout;
    if (!hasChart(root, 0)) { setTimeout(function () { fn("no-chart"); }, 0); return; }
    var since = Date.now();
    var timer = setInterval(function () {
      var drawn = !!document.querySelector(".dash-graph .main-svg");
      if (drawn || Date.now() - since > WAIT_MS) {
        clearInterval(timer);
        setTimeout(function () { fn(drawn ? "chart" : "timeout"); }, 0);
      }
    }, 30);
  }

  function snapshot() { return state; }

  function AgGrid(props) {
    var now = React.useSyncExternalStore(subscribe, snapshot);
    React.useEffect(function () {
      if (state === "idle" || state === "failed") { schedule(); }
    }, []);
    if (now === "ready") {
      return React.createElement(real.AgGrid, props);
    }
    var box = {id: props.id, className: props.className, style: props.style, "data-perfcast-grid": now};
    if (now === "failed") {
      return React.createElement("div", box, React.createElement("div", {className: "alert alert-error"},
        "This table could not be loaded. Reload the page to try again."));
    }
    return React.createElement("div", box);
  }
  /* What Dash reads off the component class. The real class's persistence defaults are copied when it
   * arrives; no perfcast grid sets persistence, so a first layout without them loses nothing. */
  AgGrid.dashRenderType = true;

  function whenReady() {
    return new Promise(function (resolve, reject) {
      if (state === "ready") { resolve(real); return; }
      var stop = subscribe(function () {
        if (state === "ready" || state === "failed") {
          stop();
          return state === "ready" ? resolve(real) : reject(new Error(NS + " not loaded"));
        }
        return undefined;
      });
      load("api");
    });
  }

  var standIn = {
    AgGrid: AgGrid,
    getApi: function (id) {
      if (!real) { throw new Error("no grid found, or grid is not initialized yet, with id: " + id); }
      return real.getApi(id);
    },
    getApiAsync: function (id) {
      return whenReady().then(function (ns) { return ns.getApiAsync(id); });
    }
  };

  /* the library ends with window.dash_ag_grid = {...}: keep it, and keep answering with the stand-in. Its
   * grid chunk writes window.dash_ag_grid = window.dash_ag_grid || {} and adds helpers: that assigns the
   * stand-in to itself, which must not become "the library" (the stand-in would render itself). */
  Object.defineProperty(window, NS, {
    configurable: true,
    enumerable: true,
    get: function () { return standIn; },
    set: function (ns) {
      if (ns === standIn) { return; }
      real = ns;
      if (ns && ns.AgGrid && ns.AgGrid.dashPersistence) { AgGrid.dashPersistence = ns.AgGrid.dashPersistence; }
    }
  });
})();
