// The device worker (src/browser/device_worker.rs starts it as a module
// worker, by URL relative to the page). It runs the page's own wasm module,
// posted by the page compiled, with the URL of its glue and the chunks of the
// generator, also compiled (`{init: {module, glue, chunks}}`; requests that
// come before it wait). It fetches the generator's font before the first
// drawing, then answers each request (`{job, id, font}`) with
// `{job, files, ms}` or `{job, error}`. A trap in the module (a panic)
// leaves it unusable: the answer says so (`broken`) and the page starts
// another worker.
let loaded;
const ready = new Promise((resolve, reject) => { loaded = { resolve, reject }; })
  .then(async ({ module, glue, chunks }) => {
    // The chunks the page compiled, which the split loader takes from here.
    globalThis.knoblabChunks = new Map(chunks);
    const m = await import(glue);
    await m.default({ module_or_path: module });
    return m;
  });
// A module that fails is reported by each request that awaits it, and
// leaves this worker unusable (`broken`: the page starts another).
let failed = false;
ready.catch(() => { failed = true; });
let font = false;
self.onmessage = async (event) => {
  const msg = event.data;
  if (msg.init) {
    if (msg.init.module) loaded.resolve(msg.init);
    else loaded.reject(new Error(msg.init.error));
    return;
  }
  const job = msg.job;
  try {
    const m = await ready;
    if (!font) {
      const response = await fetch(msg.font);
      if (!response.ok) throw new Error(`${msg.font}: the server answered ${response.status}`);
      await m.knoblab_provide_font(new Uint8Array(await response.arrayBuffer()));
      font = true;
    }
    const started = performance.now();
    const files = await m.knoblab_draw_device(msg.id);
    self.postMessage({ job, files, ms: performance.now() - started }, files.map((f) => f[1].buffer));
  } catch (e) {
    const broken = failed || e instanceof WebAssembly.RuntimeError;
    self.postMessage({ job, error: String(e && e.message ? e.message : e), broken });
  }
};
