/* perfcast: the generator runtime Dash's bundles call (regeneratorRuntime.mark / .wrap), written for the
   one form they compile to: the lazy-component helper of dash-renderer and dcc. Its body is a state
   machine over context.next; a value it returns is a yield; context.abrupt() and context.stop() end it;
   it has no try/catch regions. Served instead of Babel's 99 kB polyfill, whose other parts modern
   browsers have built in (dashboard/ui/polyfill.py). A runtime already present is left alone. */
(function () {
  "use strict";
  if (window.regeneratorRuntime) {
    return;
  }
  var AGAIN = {};

  function wrap(body, outer, self) {
    var context = {
      prev: 0,
      next: 0,
      sent: undefined,
      done: false,
      rval: undefined,
      stop: function () {
        this.done = true;
        return this.rval;
      },
      abrupt: function (type, arg) {
        if (type === "throw") {
          throw arg;
        }
        this.rval = arg;
        this.next = "end";
        return AGAIN;
      }
    };

    function resume(method, arg) {
      if (method === "throw") {
        context.done = true;
        throw arg;
      }
      if (method === "return") {
        context.done = true;
        return {value: arg, done: true};
      }
      if (context.done) {
        return {value: undefined, done: true};
      }
      context.sent = arg;
      for (;;) {
        var value = body.call(self, context);
        if (value === AGAIN) {
          continue;
        }
        return {value: value, done: context.done};
      }
    }

    return {
      next: function (arg) { return resume("next", arg); },
      "throw": function (arg) { return resume("throw", arg); },
      "return": function (arg) { return resume("return", arg); }
    };
  }

  window.regeneratorRuntime = {
    mark: function (fn) { return fn; },
    wrap: wrap
  };
}());
