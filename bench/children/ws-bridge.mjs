// A tiny WebSocket bridge for bench/remote.ts: per connection it spawns `node <echo.mjs> <args...>`
// and carries its NDJSON lines as one message each, both ways. Prints `listening ws://…` first.
import { spawn } from 'node:child_process';
import { WebSocketServer } from 'ws';

const [echo, ...args] = process.argv.slice(2);
const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false, maxPayload: 4 * 1024 * 1024 });
server.on('listening', () => process.stdout.write(`listening ws://127.0.0.1:${server.address().port}/\n`));
server.on('connection', (socket) => {
  const child = spawn(process.execPath, [echo, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  let rest = '';
  child.stdout.on('data', (chunk) => {
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop();
    for (const line of lines) if (line !== '') socket.send(line);
  });
  child.on('exit', () => socket.close(1000, 'extension exited'));
  socket.on('message', (data) => child.stdin.write(`${data.toString('utf8')}\n`));
  socket.on('close', () => {
    child.stdin.end();
    setTimeout(() => child.kill('SIGKILL'), 1000).unref();
  });
});
process.on('SIGTERM', () => {
  for (const client of server.clients) client.terminate();
  server.close(() => process.exit(0));
});
