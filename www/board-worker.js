// The Leaderboard page's worker (src/pages/leaderboard/compute.rs starts it
// as a module worker, by URL relative to the page). It runs the Leaderboard's
// own wasm module (crates/web-board-worker, `board.rs`: the page's module holds
// neither the metrics nor the device generator), compiled once by the page
// and posted as a `WebAssembly.Module` (`{init: {module}}`, or
// `{init: {error}}`; requests that come before it wait). Each request
// (`{job, build: {files, options, plan_name, plan_bytes, library}}`,
// `{job, compare: {a, b}}`, `{job, traces: {row, file, lines}}` or
// `{job, save: true}`) is answered with `{job, done}` (JSON bytes,
// transferred) or `{job, error}`, one after another in the order they came
// (the board of the last build, whose traces stay here, is what a
// comparison compares, a list of traces reads and a save writes).
const glue = import("./knoblab-board-worker.js");
let loaded;
const ready = new Promise((resolve, reject) => { loaded = { resolve, reject }; })
  .then(async (module) => {
    const m = await glue;
    // The module's exports, kept where a benchmark can read its memory
    // (e2e/bench/leaderboard-page.mjs).
    self.__knoblabWasm = await m.default({ module_or_path: module });
    return m;
  });
// A module that fails is reported by each request that awaits it.
glue.catch(() => {});
ready.catch(() => {});
const message = (e) => String(e && e.message ? e.message : e);
let queue = Promise.resolve();
self.onmessage = (event) => {
  const msg = event.data;
  if (msg.init) {
    if (msg.init.module) loaded.resolve(msg.init.module);
    else loaded.reject(new Error(msg.init.error));
    return;
  }
  queue = queue.then(() => answer(msg));
};
const answer = async (msg) => {
  const job = msg.job;
  try {
    const m = await ready;
    let done;
    if (msg.build) {
      const b = msg.build;
      done = await m.knoblab_board_build(b.files, b.options, b.plan_name ?? undefined, b.plan_bytes ?? undefined, b.library);
    } else if (msg.compare) {
      done = m.knoblab_board_compare(msg.compare.a, msg.compare.b);
    } else if (msg.traces) {
      done = m.knoblab_board_traces(msg.traces.row, msg.traces.file, new Uint32Array(msg.traces.lines));
    } else if (msg.save) {
      done = m.knoblab_board_saved();
    } else {
      throw new Error("the leaderboard worker was asked none of build, compare, traces or save");
    }
    self.postMessage({ job, done }, [done.buffer]);
  } catch (e) {
    self.postMessage({ job, error: message(e) });
  }
};
