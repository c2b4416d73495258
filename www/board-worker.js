// The Leaderboard page's worker (src/pages/leaderboard/compute.rs starts it
// as a module worker, by URL relative to the page). It runs the page's own
// wasm module, posted by the page compiled, with the URL of its glue and the
// chunks of the leaderboard's computation, also compiled (`{init: {module,
// glue, chunks}}`; requests that come before it wait). Each request
// (`{job, build: {files, options, plan_name, plan_bytes, library}}`,
// `{job, compare: {a, b}}`, `{job, traces: {row, file, lines}}` or
// `{job, save: true}`) is answered with `{job, done}` (JSON bytes,
// transferred) or `{job, error}`, one after another in the order they came
// (the board of the last build, whose traces stay here, is what a
// comparison compares, a list of traces reads and a save writes).
let loaded;
const ready = new Promise((resolve, reject) => { loaded = { resolve, reject }; })
  .then(async ({ module, glue, chunks }) => {
    // The chunks the page compiled, which the split loader takes from here.
    globalThis.knoblabChunks = new Map(chunks);
    const m = await import(glue);
    // The module's exports, kept where a benchmark can read its memory
    // (e2e/bench/leaderboard-page.mjs).
    self.__knoblabWasm = await m.default({ module_or_path: module });
    return m;
  });
// A module that fails is reported by each request that awaits it.
ready.catch(() => {});
const message = (e) => String(e && e.message ? e.message : e);
let queue = Promise.resolve();
self.onmessage = (event) => {
  const msg = event.data;
  if (msg.init) {
    if (msg.init.module) loaded.resolve(msg.init);
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
      done = await m.knoblab_board_compare(msg.compare.a, msg.compare.b);
    } else if (msg.traces) {
      done = await m.knoblab_board_traces(msg.traces.row, msg.traces.file, new Uint32Array(msg.traces.lines));
    } else if (msg.save) {
      done = await m.knoblab_board_saved();
    } else {
      throw new Error("the leaderboard worker was asked none of build, compare, traces or save");
    }
    self.postMessage({ job, done }, [done.buffer]);
  } catch (e) {
    self.postMessage({ job, error: message(e) });
  }
};
