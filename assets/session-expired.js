/* perfcast: when the server answers one of Dash's own requests (layout, callback graph, callback, job poll)
   with 401, the session expired or was ended: send the page to the sign-in page, which brings the user back
   to this address, instead of letting it go stale (dashboard/access/gate.py). */
(function () {
  "use strict";
  if (!window.fetch || window.__perfcastSignInWatch) { return; }
  window.__perfcastSignInWatch = true;
  var original = window.fetch;
  var leaving = false;
  window.fetch = function (input) {
    var url = typeof input === "string" ? input : (input && input.url) || String(input);
    return original.apply(this, arguments).then(function (response) {
      if (response.status === 401 && !leaving && url.indexOf("/_dash-") !== -1) {
        leaving = true;
        var here = window.location.pathname + window.location.search;
        window.location.assign("/login?next=" + encodeURIComponent(here));
      }
      return response;
    });
  };
}());
