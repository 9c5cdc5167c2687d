// Run by test/connection/deadline-keeps-alive.test.ts: an awaited callTool of an in-memory extension
// that never answers, in a Node process with nothing else to keep it running. Prints the failure
// code once the call settles; Node exiting first (code 13, an unsettled top-level await) is the bug.
import { PassThrough, Writable } from 'node:stream';
import { ExtensionHost } from '../../../src/index.js';

const [home] = process.argv.slice(2) as [string];
const output = new PassThrough();
const input = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line === '') continue;
      const frame = JSON.parse(line) as { type: string };
      if (frame.type === 'hello_ack') output.write('{"type":"register_tool","name":"never","description":"never answers"}\n{"type":"ready"}\n');
      if (frame.type === 'shutdown') output.end();
      // tool_call: no answer.
    }
    done();
  },
});
output.write('{"type":"hello","name":"mute"}\n');
const host = new ExtensionHost({ discover: false, cwd: home, home, logDir: home, callbacks: {}, inMemory: [{ name: 'mute', connect: () => ({ input, output }) }] });
await host.start();
const result = await host.callTool('never', {}, { timeoutMs: 300 });
process.stdout.write(`${result.failure?.code}\n`);
await host.stop();
