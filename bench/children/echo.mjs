#!/usr/bin/env node
// The benchmark child: a minimal zot extension. The raw baseline and our host both drive this
// same program, so any difference between them is the host's.
//
//   node echo.mjs [--name echo] [--tool echo] [--intercept] [--events turn_start,turn_end] [--flood]
//
// hello -> (hello_ack) -> register_tool, subscribe?, ready. tool_call -> tool_result whose text is
// JSON.stringify(args), or N bytes of "x" for args {size: N}. event_intercept -> allow ({}).
// event -> ignored. shutdown -> shutdown_ack, exit. Lines are split on LF bytes (no readline).
// --flood: also registers command `flood`; `/flood N` registers commands c1..cN (after ready), then
// answers noop, all in one write.

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback;
};

const name = option('--name', 'echo');
const tool = option('--tool', 'echo');
const intercept = flag('--intercept');
const flood = flag('--flood');
const events = option('--events', '')
  .split(',')
  .filter((e) => e.length > 0);

const out = process.stdout;
const fillers = new Map();
const filler = (size) => {
  let text = fillers.get(size);
  if (text === undefined) {
    text = 'x'.repeat(size);
    fillers.set(size, text);
  }
  return text;
};

let acked = false;
let exiting = false;
// Replies produced while handling one input chunk leave in one write, so under load the child
// is not the bottleneck and the parent's cost is what the benchmark sees.
let batch = '';

function handle(msg) {
  switch (msg.type) {
    case 'hello_ack': {
      if (acked) return;
      acked = true;
      batch += `${JSON.stringify({
        type: 'register_tool',
        name: tool,
        description: 'Echoes its args as JSON, or returns `size` bytes of text.',
        schema: { type: 'object', properties: { size: { type: 'integer' } } },
      })}\n`;
      if (flood) batch += '{"type":"register_command","name":"flood","description":"registers N commands"}\n';
      if (intercept || events.length > 0) {
        batch += `${JSON.stringify({ type: 'subscribe', events, intercept: intercept ? ['tool_call'] : [] })}\n`;
      }
      batch += '{"type":"ready"}\n';
      return;
    }
    case 'tool_call': {
      const args = msg.args ?? {};
      const text = typeof args.size === 'number' ? filler(args.size) : JSON.stringify(args);
      batch += `${JSON.stringify({ type: 'tool_result', id: msg.id, content: [{ type: 'text', text }] })}\n`;
      return;
    }
    case 'event_intercept':
      batch += `${JSON.stringify({ type: 'event_intercept_response', id: msg.id })}\n`;
      return;
    case 'command_invoked':
      if (flood && msg.name === 'flood') {
        const n = Number.parseInt(String(msg.args), 10) || 0;
        for (let i = 1; i <= n; i++) batch += `{"type":"register_command","name":"c${i}","description":"command ${i}"}\n`;
      }
      batch += `${JSON.stringify({ type: 'command_response', id: msg.id, action: 'noop' })}\n`;
      return;
    case 'shutdown':
      exiting = true;
      batch += '{"type":"shutdown_ack"}\n';
      return;
    default:
      // event, panel_key, panel_close: nothing to answer.
      return;
  }
}

function line(bytes) {
  if (bytes.length === 0) return;
  let msg;
  try {
    msg = JSON.parse(bytes.toString('utf8'));
  } catch {
    return;
  }
  if (msg !== null && typeof msg === 'object') handle(msg);
}

let parts = [];
process.stdin.on('data', (chunk) => {
  let start = 0;
  let nl = chunk.indexOf(10, start);
  while (nl !== -1) {
    if (parts.length === 0) {
      line(chunk.subarray(start, nl));
    } else {
      parts.push(chunk.subarray(start, nl));
      const joined = Buffer.concat(parts);
      parts = [];
      line(joined);
    }
    start = nl + 1;
    nl = chunk.indexOf(10, start);
  }
  if (start < chunk.length) parts.push(chunk.subarray(start));
  if (batch.length > 0) {
    const data = batch;
    batch = '';
    if (exiting) out.write(data, () => process.exit(0));
    else out.write(data);
  } else if (exiting) {
    process.exit(0);
  }
});
process.stdin.on('end', () => process.exit(0));

out.write(`${JSON.stringify({ type: 'hello', name, version: '1.0.0', capabilities: ['tools'] })}\n`);
