// Child of test/host/tracing-off.test.ts: runs the built package with `@opentelemetry/*` made
// unresolvable by a resolve hook (any import of it throws "blocked by the test"), over the kitchen fixture.
// argv: <dist dir> <kitchen dir> <'off'|'on'>. Prints one JSON line.
import { register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const hook = `
export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@opentelemetry/')) throw new Error('blocked by the test: ' + specifier);
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);

const [dist, kitchen, mode] = process.argv.slice(2);
const { ExtensionHost } = await import(pathToFileURL(path.join(dist, 'index.js')).href);
const host = new ExtensionHost({ explicit: [kitchen], discover: false, home: process.env.ZOT_TEST_HOME, tracing: mode === 'on' });
const out = {};
try {
  const report = await host.start();
  out.loaded = report.loaded.map((l) => l.name);
  out.tool = (await host.callTool('echo', { text: 'hi' })).content[0].text;
  out.command = (await host.runCommand('/ack')).handled;
  out.intercept = (await host.intercepts.toolCall({ toolId: 't', toolName: 'bash', args: { command: 'ls' } })).block;
} catch (err) {
  out.error = { code: err.code, message: err.message };
}
await host.stop();
console.log(JSON.stringify(out));
