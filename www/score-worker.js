// The Score page's scoring worker (src/pages/score/worker.rs starts it as a
// module worker, by URL relative to the page). It runs the page's own wasm
// module, posted by the page compiled, with the URL of its glue and the
// chunks of the job and EPIC-Bench's scorer, also compiled (`{init:
// {module, glue, chunks}}`); the other benchmarks' scorers are chunks this
// worker downloads when a job needs them (the page's src/worker).
// Then for each job it reads its files (dropped `File`s or URLs of shipped
// samples), scores them in Rust and posts progress (JSON text) and the
// outcome (JSON bytes) back. Messages that come before the module wait for
// it. Every call into the module is async: it rejects with a message when a
// chunk cannot be downloaded.
const FONT_PATH = "knoblab-font";
let loaded;
const ready = new Promise((resolve, reject) => { loaded = { resolve, reject }; })
  .then(async ({ module, glue, chunks }) => {
    // The chunks the page compiled, which the split loader takes from here.
    globalThis.knoblabChunks = new Map(chunks);
    const m = await import(glue);
    await m.default({ module_or_path: module });
    mark("module: ready");
    return m;
  });
// A module that fails is reported by each message that awaits it.
ready.catch(() => {});
// A job came: the warm-up stops after its round.
let busy = false;
const inbox = [];
let wake = null;
// Timing marks on the page's clock (`timeOrigin + now()`), sent with the
// next message so the page records them (`performance.mark`).
let marks = [];
const mark = (name) => marks.push([name, performance.timeOrigin + performance.now()]);
const post = (msg, transfer = []) => { msg.marks = marks; marks = []; self.postMessage(msg, transfer); };
const next = () => inbox.length ? Promise.resolve() : new Promise((resolve) => { wake = resolve; });
const message = (e) => String(e && e.message ? e.message : e);
self.onmessage = async (event) => {
  const msg = event.data;
  if (msg.init) {
    mark("module: start");
    // The compiled module: instantiated here, not fetched and compiled again.
    if (msg.init.module) loaded.resolve(msg.init);
    else loaded.reject(new Error(msg.init.error));
    return;
  }
  // The page's first spare worker warms the scoring code up, once per page
  // load (`warm_up`): a round at a time, until a job comes.
  // A warm-up that fails ends there, and its marks say why.
  if (msg.warm !== undefined) {
    let rounds = 0;
    try {
      const m = await ready;
      mark("warm-up: start");
      while (rounds < msg.warm.rounds && !busy) {
        await m.knoblab_warm_up(msg.warm.scale);
        rounds += 1;
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      mark(busy ? "warm-up: cut short" : "warm-up: done");
    } catch (e) {
      mark(`warm-up: failed after ${rounds} rounds: ${message(e)}`);
    }
    post({ warmed: rounds });
    return;
  }
  // A helper's EPIC-Bench shard, forwarded by the page to the merging worker.
  if (msg.shard !== undefined) {
    mark("shard in");
    inbox.push(msg.shard);
    if (wake) { wake(); wake = null; }
    return;
  }
  // An item's drill-down, scored again from the job kept in the module.
  if (msg.item) {
    const { file, index, id } = msg.item;
    try {
      const m = await ready;
      self.postMessage({ item: await m.knoblab_epic_item(file, index), id });
    } catch (e) {
      self.postMessage({ item: JSON.stringify({ error: message(e) }), id });
    }
    return;
  }
  try {
    busy = true;
    mark("job in");
    // All files are read at once, not one after another, and while the
    // module is still being instantiated (a worker not started ahead).
    const read = async (files) => {
      post({ progress: JSON.stringify({ done: 0, total: files.length, stage: `reading ${files.length > 3 ? `${files.length} files` : files.map((f) => f.path).join(", ")}` }) });
      const buffers = await Promise.all(files.map(async (f) => {
        if (f.file) return new Uint8Array(await f.file.arrayBuffer());
        const response = await fetch(f.url);
        if (!response.ok) throw new Error(`${f.path}: HTTP ${response.status} from ${f.url}`);
        return new Uint8Array(await response.arrayBuffer());
      }));
      return [files.map((f) => f.path), buffers];
    };
    // The files go into the module once; every call below reads them there.
    const reading = read(msg.files);
    // Awaited below; this only keeps a read that fails before the module
    // is ready from being reported as an unhandled rejection meanwhile.
    reading.catch(() => {});
    const m = await ready;
    const files = await reading;
    mark("bytes in");
    await m.knoblab_take_job(...files, msg.options);
    mark("files read");
    const { index, of } = msg.part;
    // A helper scores its shard of the EPIC-Bench files and is done.
    if (index > 0) {
      const shard = await m.knoblab_score_shard(index, of);
      mark("shard scored");
      post({ shard }, [shard.buffer]);
      return;
    }
    // The scorers of the job's other benchmarks, each a chunk fetched here
    // only for a job with such a file.
    await m.knoblab_give_scorers();
    // Library bundles are fetched only when a file needs them (trajectories).
    if (msg.bundles.length && await m.knoblab_job_needs_bundles()) {
      // The generated devices the trajectories were played on are made
      // here: the generator (a chunk) and its font come only for those.
      const generated = await m.knoblab_job_needs_generator();
      for (const b of msg.bundles) {
        if (b.path === FONT_PATH && !generated) continue;
        post({ progress: JSON.stringify({ done: 0, total: 1, stage: `reading ${b.url}` }) });
        const response = await fetch(b.url);
        if (!response.ok) throw new Error(`${b.url}: HTTP ${response.status}`);
        const bytes = new Uint8Array(await response.arrayBuffer());
        if (b.path === FONT_PATH) { await m.knoblab_give_generator(bytes); continue; }
        await m.knoblab_add_job_files([b.path], [bytes]);
      }
    }
    // The merging worker scores its own shard, then merges each helper's
    // as it comes.
    if (of > 1) {
      post({ progress: JSON.stringify({ done: 0, total: 1, stage: `scoring in ${of} workers` }) });
      await m.knoblab_merge_own_shard(of);
      mark("shard scored");
      for (let merged = 1; merged < of; merged++) {
        await next();
        await m.knoblab_merge_shard(inbox.shift());
        mark("shard merged");
      }
    }
    const out = await m.knoblab_score_job((p) => post({ progress: p }));
    mark("job scored");
    post({ done: out }, [out.buffer]);
  } catch (e) {
    post({ error: message(e) });
  }
};
