// The out-of-date mark of a job page (dashboard/ui/stale.py): while a page's Run button is disabled by its
// running job, the result on screen is the previous one: dim it, say so, and hold its downloads.
(function () {
  const TEXT = "Out of date: anything shown below is the previous run's result. It is replaced when this run " +
               "finishes; its downloads wait until then.";
  const FIRST = "Running: the result appears below when this run finishes.";
  function downloads(prefix) {
    return document.querySelectorAll(`[id^="${prefix}-download"], [id^="${prefix}-"][id$="-csv"]`);
  }
  function mark(run) {
    const prefix = run.id.slice(0, -"-run".length);
    const slot = document.getElementById(prefix + "-stale");
    if (!slot) return;  // not a job panel's Run button
    const on = run.disabled;
    slot.textContent = "";
    if (on) {
      const note = document.createElement("div");
      note.className = "alert alert-warning stale-note";
      note.setAttribute("role", "status");
      const changed = document.getElementById(prefix + "-changed");
      const shown = changed && changed.classList.contains("has-result");
      note.textContent = shown ? TEXT : FIRST;
      slot.appendChild(note);
    }
    downloads(prefix).forEach(b => {
      if (on) { b.dataset.staleHeld = "1"; b.disabled = true; }
      else if (b.dataset.staleHeld) { delete b.dataset.staleHeld; b.disabled = false; }
    });
    const anyOn = [...document.querySelectorAll(".stale-note")].length > 0;
    document.body.classList.toggle("pc-stale", anyOn);
  }
  function start() {
    new MutationObserver(changes => changes.forEach(c => {
      if (c.target.id && c.target.id.endsWith("-run")) mark(c.target);
    })).observe(document.body, {subtree: true, attributes: true, attributeFilter: ["disabled"]});
  }
  if (document.body) start(); else document.addEventListener("DOMContentLoaded", start);
})();
