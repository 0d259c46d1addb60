// Stands in for what VS Code gives a webview: acquireVsCodeApi (once per
// page) records what the panel posts and keeps its state; messages from
// the extension arrive as window 'message' events, as in VS Code. The
// tests drive it through window.__harness.
(() => {
  const posted = [];
  const violations = [];
  let state = window.__initialVsCodeState; // set by a test's init script
  let acquired = false;
  document.addEventListener('securitypolicyviolation', (e) => violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  window.acquireVsCodeApi = () => {
    if (acquired) throw new Error('An instance of the VS Code API has already been acquired');
    acquired = true;
    return Object.freeze({
      postMessage: (msg) => posted.push(JSON.parse(JSON.stringify(msg))),
      getState: () => state,
      setState: (s) => {
        state = JSON.parse(JSON.stringify(s));
        return s;
      },
    });
  };
  let syncs = 0;
  window.__harness = {
    posted,
    violations,
    get state() {
      return state;
    },
    /** Delivers messages and resolves once the panel has handled them and painted. */
    deliver(msgs) {
      const token = `__sync${++syncs}`;
      const done = new Promise((resolve) => {
        const onMessage = (ev) => {
          if (ev.data !== token) return;
          window.removeEventListener('message', onMessage);
          requestAnimationFrame(() => requestAnimationFrame(resolve));
        };
        window.addEventListener('message', onMessage);
      });
      for (const m of msgs) window.postMessage(m, '*');
      window.postMessage(token, '*');
      return done;
    },
  };
})();
