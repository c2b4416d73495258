// The end-to-end tests' static server: dist/ under a nested sub-path, as a
// project site on a static host serves it, and a second origin for pages
// that embed KnobLab from another site.
//
//   node e2e/serve.mjs [--dist DIR] [--mount /a/b/c/]
//
// prints one line of JSON, {"app": URL, "host": URL}, once both listen:
// - app: DIR served at the mount path (only there: anything else is a 404,
//   so a URL built from the host's root fails loudly), with gzip when the
//   browser accepts it, an ETag and `Cache-Control: no-cache` (a static
//   host's revalidation), and `/__bytes` (GET: bytes and requests sent since
//   the last `/__bytes/reset`, the counters the size figures read).
// - host: e2e/host/ at `/`, on another port (another origin).
import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { extname, join, normalize, resolve, sep } from 'node:path';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] ? args[at + 1] : fallback;
};
const DIST = resolve(option('--dist', 'dist'));
const MOUNT = option('--mount', '/a/b/c/');
const HOST_DIR = resolve(new URL('host/', import.meta.url).pathname);

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.ttf': 'font/ttf', '.zip': 'application/zip',
  '.jsonl': 'application/x-ndjson', '.txt': 'text/plain; charset=utf-8', '.md': 'text/markdown; charset=utf-8',
};
const COMPRESS = new Set(['.html', '.js', '.mjs', '.wasm', '.css', '.json', '.svg', '.ttf', '.jsonl', '.txt', '.md']);

// Bodies sent since the last reset: in all, and by path (the page's and its
// workers' requests alike, which the DevTools protocol of a page does not see).
// `headers`: the response headers' bytes, which a browser's "transferred" counts too.
const unsent = () => ({ bytes: 0, requests: 0, headers: 0, files: {} });
let sent = unsent();
// Gzipped bodies by path and modification time: a 7 MB wasm is compressed once.
const gzipped = new Map();

async function file(root, rel) {
  const path = normalize(join(root, rel));
  if (path !== root && !path.startsWith(root + sep)) return null;
  try {
    let s = await stat(path);
    let at = path;
    if (s.isDirectory()) {
      at = join(path, 'index.html');
      s = await stat(at);
    }
    return { path: at, stat: s };
  } catch {
    return null;
  }
}

function handler(root, mount, counted) {
  return async (req, res) => {
    const url = new URL(req.url, 'http://x');
    if (counted && url.pathname === '/__bytes') return json(res, sent);
    if (counted && url.pathname === '/__bytes/reset') { sent = unsent(); return json(res, sent); }
    if (url.pathname === mount.slice(0, -1)) {
      res.writeHead(301, { location: mount });
      return res.end();
    }
    if (!url.pathname.startsWith(mount) || (req.method !== 'GET' && req.method !== 'HEAD')) return notFound(res);
    let rel;
    try { rel = decodeURIComponent(url.pathname.slice(mount.length)); } catch { return notFound(res); }
    const found = await file(root, rel);
    if (!found) return notFound(res);
    const ext = extname(found.path);
    const tag = `"${createHash('sha1').update(`${found.path}:${found.stat.size}:${found.stat.mtimeMs}`).digest('hex').slice(0, 16)}"`;
    const headers = { 'content-type': TYPES[ext] ?? 'application/octet-stream', etag: tag, 'cache-control': 'no-cache', vary: 'accept-encoding' };
    if (req.headers['if-none-match'] === tag) {
      res.writeHead(304, headers);
      if (counted) {
        sent.requests += 1;
        sent.headers += headerBytes(res);
      }
      return res.end();
    }
    let body = await readFile(found.path);
    if (COMPRESS.has(ext) && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
      const key = `${found.path}:${found.stat.mtimeMs}`;
      if (!gzipped.has(key)) gzipped.set(key, gzipSync(body, { level: 6 }));
      body = gzipped.get(key);
      headers['content-encoding'] = 'gzip';
    }
    headers['content-length'] = body.length;
    res.writeHead(200, headers);
    if (counted) {
      sent.bytes += body.length;
      sent.requests += 1;
      sent.headers += headerBytes(res);
      sent.files[rel] = (sent.files[rel] ?? 0) + body.length;
    }
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}

/** The bytes of the status line and headers a response sent (Node keeps them as text). */
function headerBytes(res) {
  return Buffer.byteLength(res._header ?? '');
}

function json(res, value) {
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(value));
}

function notFound(res) {
  res.writeHead(404, { 'content-type': 'text/plain' });
  res.end('not found');
}

function listen(server) {
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server.address().port)));
}

const app = await listen(createServer(handler(DIST, MOUNT, true)));
const host = await listen(createServer(handler(HOST_DIR, '/', false)));
console.log(JSON.stringify({ app: `http://127.0.0.1:${app}${MOUNT}`, host: `http://127.0.0.1:${host}/` }));
