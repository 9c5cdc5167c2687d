// The ways the parity tests run the same behaviour: the hand-written fixtures as subprocesses, the SDK
// kitchen in-process and as a subprocess (its directory, via its manifest), and the Python SDK's
// kitchen (fixtures/sdk/kitchen-py) as a subprocess.
import type { RunnableExtension } from '../../src/testing/index.js';
import { createKitchen } from '../../fixtures/sdk/kitchen-sdk/extension.js';
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { killRunningClis, type CliProcess } from '../cli/cli.js';
import { startServe } from '../cli/serve-client.js';
import { fixture } from '../helpers/fixtures.js';
import { runRaw, spawnRaw, type RawExtension } from './helpers.js';

export interface Variant {
  label: string;
  /** Name of the extension that owns the kitchen's commands, tools, events and panel. */
  kitchen: string;
  /**
   * Who answers what the hand-written kitchen lacks: other hand-written fixtures (weather, guard,
   * redactor, prompt-append-a) for the node variant, the kitchen itself for the SDK variants.
   */
  owners: { deferred: string; toolGuard: string; redactor: string; prompt: string };
  /** Given to createTestHost: SDK definitions run in-process, directories as subprocesses. */
  extensions: () => (RunnableExtension | string)[];
  /** The kitchen's `extension_dir` in hello_ack; undefined means the host's cwd (in-process). */
  kitchenDir: string | undefined;
  /** Runs behaviours only an SDK has: throwing handlers, turn_start interception, stdout guarded. */
  sdk: boolean;
  /** Runs zod validation of tool args (the TypeScript SDK only). */
  zod: boolean;
  /** What the SDK makes of the kitchen's `kaboom` exception in an error answer. */
  thrown: string;
  /** The line `/log` prints from its handler (which must land on stderr). */
  printed: string;
  subprocess: boolean;
  /** The kitchen's hello frame. */
  hello: Record<string, unknown>;
  /** A fresh kitchen over raw stdio with no host, for shutdown and EOF. */
  raw: () => RawExtension;
  /**
   * Runs before the host starts (e.g. `zot-ext serve`); resolves with its teardown. With
   * `serverStderr`, what a handler prints lands there instead of the extension's log.
   */
  setup?: ((workspace: string) => Promise<() => Promise<void>>) | undefined;
  serverStderr?: (() => string) | undefined;
}

const KITCHEN_DIR = fixture('extensions/kitchen');
const KITCHEN_SDK_DIR = fixture('sdk/kitchen-sdk');
const KITCHEN_PY_DIR = fixture('sdk/kitchen-py');

const SDK_HELLO = {
  type: 'hello',
  name: 'kitchen-sdk',
  version: '0.1.0',
  capabilities: ['commands', 'tools', 'events', 'intercept', 'panels', 'cancel', 'progress', 'trace'],
};
const SDK_OWNERS = { deferred: 'kitchen-sdk', toolGuard: 'kitchen-sdk', redactor: 'kitchen-sdk', prompt: 'kitchen-sdk' };
const TS_SDK = { sdk: true, zod: true, thrown: 'kaboom', printed: 'console.log from a handler' } as const;

export const VARIANTS: Variant[] = [
  {
    label: 'hand-written node kitchen (subprocess)',
    kitchen: 'kitchen',
    owners: { deferred: 'weather', toolGuard: 'guard', redactor: 'redactor', prompt: 'prompt-append-a' },
    extensions: () => [
      KITCHEN_DIR,
      fixture('extensions/weather'),
      fixture('extensions/guard'),
      fixture('intercept/redactor'),
      fixture('intercept/prompt-append-a'),
    ],
    kitchenDir: KITCHEN_DIR,
    sdk: false,
    zod: false,
    thrown: '',
    printed: '',
    subprocess: true,
    hello: { type: 'hello', name: 'kitchen', version: '0.1.0', capabilities: ['commands', 'tools', 'panels'] },
    raw: () => spawnRaw(KITCHEN_DIR),
  },
  {
    label: 'SDK kitchen (in-process)',
    kitchen: 'kitchen-sdk',
    owners: SDK_OWNERS,
    extensions: () => [createKitchen()],
    kitchenDir: undefined,
    ...TS_SDK,
    subprocess: false,
    hello: SDK_HELLO,
    raw: () => runRaw(createKitchen()),
  },
  {
    label: 'SDK kitchen (subprocess)',
    kitchen: 'kitchen-sdk',
    owners: SDK_OWNERS,
    extensions: () => [KITCHEN_SDK_DIR],
    kitchenDir: KITCHEN_SDK_DIR,
    ...TS_SDK,
    subprocess: true,
    hello: SDK_HELLO,
    raw: () => spawnRaw(KITCHEN_SDK_DIR),
  },
  served(),
  {
    label: 'Python SDK kitchen (subprocess)',
    kitchen: 'kitchen-py',
    owners: { deferred: 'kitchen-py', toolGuard: 'kitchen-py', redactor: 'kitchen-py', prompt: 'kitchen-py' },
    extensions: () => [KITCHEN_PY_DIR],
    kitchenDir: KITCHEN_PY_DIR,
    sdk: true,
    zod: false,
    // Python names the exception's class.
    thrown: 'RuntimeError: kaboom',
    printed: 'print() from a handler',
    subprocess: true,
    hello: { ...SDK_HELLO, name: 'kitchen-py' },
    raw: () => spawnRaw(KITCHEN_PY_DIR),
  },
];

/**
 * The SDK kitchen served by `zot-ext serve` (its own process per connection) and loaded through a
 * `url` manifest: the same list over a WebSocket on 127.0.0.1.
 */
function served(): Variant {
  let cli: CliProcess | undefined;
  let manifestDir = '';
  return {
    label: 'SDK kitchen (served by zot-ext serve, over WebSocket)',
    kitchen: 'kitchen-sdk',
    owners: SDK_OWNERS,
    extensions: () => [manifestDir],
    // The server gives the extension its own directory, not the manifest's on the host.
    kitchenDir: KITCHEN_SDK_DIR,
    ...TS_SDK,
    subprocess: true,
    hello: SDK_HELLO,
    raw: () => spawnRaw(KITCHEN_SDK_DIR),
    setup: async (workspace) => {
      const started = await startServe(KITCHEN_SDK_DIR);
      cli = started.cli;
      manifestDir = path.join(workspace, 'remote-kitchen-sdk');
      mkdirSync(manifestDir, { recursive: true });
      writeFileSync(path.join(manifestDir, 'extension.json'), JSON.stringify({ name: 'kitchen-sdk', url: started.url }));
      return () => killRunningClis();
    },
    serverStderr: () => cli?.stderr ?? '',
  };
}

/** Commands both kitchens register, in this order, with these descriptions. */
export const SHARED_COMMANDS: [name: string, description: string][] = [
  ['ask', 'prompt the model with "Q: <args>"'],
  ['put', 'insert <args> into the editor'],
  ['show', 'display <args>'],
  ['panel', 'open the kitchen panel'],
  ['bg', 'notify, submit <args>, then noop'],
  ['oops', 'display "partial" with an error'],
  ['blank', 'submit whitespace, then noop'],
  ['clear', "clear this extension's notes"],
  ['ack', 'display the hello_ack frame as JSON'],
  ['latetool', 'register late_tool after ready'],
  ['foreign', 'render a panel owned by another extension'],
  ['noreply', 'never answer'],
];

const EMPTY = { type: 'object', properties: {} };

/** Tools both kitchens register, in this order. */
export const SHARED_TOOLS: { name: string; description: string; schema: Record<string, unknown> }[] = [
  { name: 'echo', description: 'Return the args as JSON text.', schema: { type: 'object' } },
  {
    name: 'slow',
    description: 'Wait ms milliseconds, then answer.',
    schema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
  },
  { name: 'hang', description: 'Never answers.', schema: EMPTY },
  { name: 'image', description: 'Return a tiny PNG block.', schema: EMPTY },
  { name: 'fail', description: 'Return an error result.', schema: EMPTY },
];

export const KITCHEN_EVENTS = [
  'session_start',
  'turn_start',
  'turn_end',
  'tool_call',
  'tool_confirmation_requested',
  'assistant_message',
  'custom_thing',
];
