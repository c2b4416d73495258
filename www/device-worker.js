// The device worker (src/browser/device_worker.rs starts it as a module
// worker, by URL relative to the page): loads the page's own wasm module
// once, fetches the generator's font before the first drawing, then answers
// each request (`{job, kind, id, font}`) with `{job, files | png, ms}` or
// `{job, error}`. A trap in the module (a panic) leaves it unusable: the
// answer says so (`broken`) and the page starts another worker.
let ready = null;
let font = false;
self.onmessage = async (event) => {
  const msg = event.data;
  if (msg.init) {
    ready = import(msg.init.js).then(async (m) => { await m.default({ module_or_path: msg.init.wasm }); return m; });
    return;
  }
  const job = msg.job;
  try {
    const m = await ready;
    if (!font) {
      const response = await fetch(msg.font);
      if (!response.ok) throw new Error(`${msg.font}: the server answered ${response.status}`);
      m.knoblab_provide_font(new Uint8Array(await response.arrayBuffer()));
      font = true;
    }
    const started = performance.now();
    if (msg.kind === "thumbnail") {
      const png = m.knoblab_draw_thumbnail(msg.id);
      self.postMessage({ job, png, ms: performance.now() - started }, [png.buffer]);
    } else {
      const files = m.knoblab_draw_device(msg.id);
      self.postMessage({ job, files, ms: performance.now() - started }, files.map((f) => f[1].buffer));
    }
  } catch (e) {
    const broken = e instanceof WebAssembly.RuntimeError;
    self.postMessage({ job, error: String(e && e.message ? e.message : e), broken });
  }
};
