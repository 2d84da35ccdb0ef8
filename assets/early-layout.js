/* perfcast: ask for the page's layout and callback graph while the page's scripts still run.
 *
 * Dash's renderer asks for _dash-layout and _dash-dependencies once every script has run (plotly.js alone
 * runs for 0.3 s in a new browser profile), and the page waits for the answers with nothing else to do.
 * This file runs before plotly.js and the renderer (assets are loaded before the vendored bundle) and
 * sends the same two GET requests at once; the renderer's own requests are then answered with these
 * responses, each once. Any other request, or a second request for the same address, goes to the network.
 * dashboard/ui/layout_prefetch.py leaves this file out for PERFCAST_LAYOUT_REQUEST=renderer.
 */
(function () {
  "use strict";
  if (!window.fetch || window.__perfcastEarly) { return; }
  var node = document.getElementById("_dash-config");
  if (!node) { return; }
  var base;
  try {
    base = JSON.parse(node.textContent).requests_pathname_prefix || "/";
  } catch (err) {
    return;
  }
  if (base.slice(-1) !== "/") { base += "/"; } /* as the renderer joins it */
  var original = window.fetch;
  var early = {};
  var init = {method: "GET", credentials: "same-origin",
              headers: {Accept: "application/json", "Content-Type": "application/json"}};
  ["_dash-layout", "_dash-dependencies"].forEach(function (endpoint) {
    var url = base + endpoint;
    var sent = original.call(window, url, init);
    sent.catch(function () { return null; }); /* a failed request is the renderer's to report */
    early[url] = sent;
  });
  window.__perfcastEarly = true;
  window.fetch = function (input, options) {
    var url = typeof input === "string" ? input : null;
    var method = options && options.method ? String(options.method).toUpperCase() : "GET";
    if (url !== null && method === "GET" && Object.prototype.hasOwnProperty.call(early, url)) {
      var answer = early[url];
      delete early[url];
      return answer;
    }
    return original.apply(this, arguments);
  };
}());
