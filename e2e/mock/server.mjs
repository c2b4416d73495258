// A local stand-in for a model API, for the agent page's end-to-end tests:
// an OpenAI-compatible `POST /v1/chat/completions` or Anthropic's
// `POST /v1/messages`. It answers CORS preflights the way the real services
// do (only the headers the flavour allows), checks every request's shape
// and headers, replies with scripted text, and fails on demand (429 with
// Retry-After, 500, a hang past the client's timeout, no CORS at all).
// Every problem it sees is kept in `violations`, which a test asserts empty.
import { createServer } from 'node:http';

/** Headers a browser adds by itself to a fetch; anything else must be the page's. */
const BROWSER_HEADERS = new Set([
  'host', 'connection', 'content-length', 'origin', 'referer', 'user-agent', 'accept',
  'accept-encoding', 'accept-language', 'pragma', 'cache-control', 'priority',
]);
const isBrowserHeader = (name) => BROWSER_HEADERS.has(name) || name.startsWith('sec-');

const FLAVOURS = {
  openai: {
    path: '/v1/chat/completions',
    keyHeader: 'authorization',
    keyValue: (key) => `Bearer ${key}`,
    required: ['content-type'],
    allowed: ['authorization', 'content-type'],
    checkBody(body, problems) {
      if (typeof body.model !== 'string') problems.push('body.model is not a string');
      if (body.stream !== false) problems.push('body.stream is not false');
      const [system, ...rest] = body.messages ?? [];
      if (system?.role !== 'system' || typeof system.content !== 'string') problems.push('messages[0] is not the system prompt');
      const last = rest.at(-1);
      const image = last?.content?.find?.((p) => p.type === 'image_url');
      if (last?.role !== 'user' || !/^data:image\/(png|jpeg);base64,/.test(image?.image_url?.url ?? '')) {
        problems.push('the last message is not a user turn with a base64 data: URL image');
      }
    },
    reply: (text) => ({
      id: 'mock', object: 'chat.completion', model: 'mock-vlm',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1200, completion_tokens: 40, total_tokens: 1240 },
    }),
    error: (status, message) => ({ error: { message, type: status === 429 ? 'rate_limit_exceeded' : 'server_error' } }),
  },
  anthropic: {
    path: '/v1/messages',
    keyHeader: 'x-api-key',
    keyValue: (key) => key,
    required: ['content-type', 'anthropic-version'],
    allowed: ['x-api-key', 'content-type', 'anthropic-version', 'anthropic-dangerous-direct-browser-access'],
    checkBody(body, problems) {
      if (typeof body.model !== 'string') problems.push('body.model is not a string');
      if (!Number.isInteger(body.max_tokens)) problems.push('body.max_tokens is not an integer');
      if (typeof body.system !== 'string') problems.push('body.system is not a string');
      const last = body.messages?.at(-1);
      const image = last?.content?.find?.((p) => p.type === 'image');
      if (last?.role !== 'user' || image?.source?.type !== 'base64' || !image.source.data) {
        problems.push('the last message is not a user turn with a base64 image');
      }
    },
    reply: (text) => ({
      id: 'msg_mock', type: 'message', role: 'assistant', model: 'mock-claude',
      content: [{ type: 'text', text }], stop_reason: 'end_turn',
      usage: { input_tokens: 1500, output_tokens: 50 },
    }),
    error: (status, message) => ({ type: 'error', error: { type: status === 429 ? 'rate_limit_error' : 'api_error', message } }),
  },
};

/**
 * Starts a mock on a free port of 127.0.0.1.
 * `key`: the key requests must carry. `script`: a list consumed one entry
 * per POST: `{ text }`, `{ status, retryAfter? }`, `{ hang: true }`, `{ raw }`
 * (a 200 whose body is not JSON); when
 * empty, `reply(n)` gives the text. `delayMs` delays every answer.
 * `cors: false` answers without any CORS header, like Ollama to a foreign origin.
 */
export async function startMock({ flavour, key, script = [], reply = () => 'Action: Timed_wait()', delayMs = 0, cors = true }) {
  const f = FLAVOURS[flavour];
  const violations = [];
  const requests = [];
  const hanging = [];
  const corsHeaders = (req) => (cors ? {
    'access-control-allow-origin': req.headers.origin ?? '*',
    'access-control-expose-headers': 'retry-after',
    vary: 'Origin',
  } : {});

  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });

  function handle(req, res, text) {
    if (req.method === 'OPTIONS') {
      // The preflight: allow exactly the flavour's headers, as OpenRouter and
      // Gemini do; asking for another one is a failure of the page.
      const asked = (req.headers['access-control-request-headers'] ?? '')
        .split(',').map((h) => h.trim().toLowerCase()).filter(Boolean);
      const extra = asked.filter((h) => !f.allowed.includes(h));
      if (extra.length) violations.push(`preflight asked for unexpected headers: ${extra.join(', ')}`);
      res.writeHead(204, cors ? {
        ...corsHeaders(req),
        'access-control-allow-methods': 'POST, OPTIONS',
        'access-control-allow-headers': f.allowed.join(', '),
        'access-control-max-age': '600',
      } : {});
      return res.end();
    }
    const problems = [];
    if (req.method !== 'POST') problems.push(`method ${req.method}`);
    if (req.url !== f.path) problems.push(`path ${req.url}, expected ${f.path}`);
    const names = Object.keys(req.headers);
    const unexpected = names.filter((n) => !isBrowserHeader(n) && !f.allowed.includes(n));
    if (unexpected.length) problems.push(`unexpected headers: ${unexpected.join(', ')}`);
    for (const n of f.required) if (!req.headers[n]) problems.push(`missing header ${n}`);
    if (req.headers['content-type'] !== 'application/json') problems.push(`content-type ${req.headers['content-type']}`);
    if (req.headers[f.keyHeader] !== f.keyValue(key)) problems.push(`${f.keyHeader} is not the key typed`);
    let body = null;
    try { body = JSON.parse(text); } catch { problems.push('the body is not JSON'); }
    if (body) f.checkBody(body, problems);
    requests.push({ headers: req.headers, body, text });
    if (flavour === 'anthropic' && req.headers['anthropic-dangerous-direct-browser-access'] !== 'true') {
      // What the real service says to a browser without the opt-in.
      violations.push('no anthropic-dangerous-direct-browser-access header');
      return send(res, req, 401, f.error(401, "CORS requests must set 'anthropic-dangerous-direct-browser-access' header"));
    }
    if (problems.length) {
      violations.push(...problems);
      return send(res, req, 400, f.error(400, problems.join('; ')));
    }
    const step = script.length ? script.shift() : { text: reply(requests.length) };
    if (step.hang) { hanging.push(res); return; }
    if (step.raw !== undefined) {
      res.writeHead(200, { 'content-type': 'text/html', ...corsHeaders(req) });
      return res.end(step.raw);
    }
    setTimeout(() => {
      if (step.status) {
        const extra = step.retryAfter !== undefined ? { 'retry-after': String(step.retryAfter) } : {};
        return send(res, req, step.status, f.error(step.status, `scripted ${step.status}`), extra);
      }
      send(res, req, 200, f.reply(step.text));
    }, delayMs);
  }

  function send(res, req, status, json, extra = {}) {
    res.writeHead(status, { 'content-type': 'application/json', ...corsHeaders(req), ...extra });
    res.end(JSON.stringify(json));
  }

  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    origin: `http://127.0.0.1:${port}`,
    violations,
    requests,
    script,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
