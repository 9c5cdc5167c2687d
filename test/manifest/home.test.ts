import { describe, expect, it } from 'vitest';
import { homeEnvVar, resolveHome } from '../../src/manifest/index.js';

const home = '/home/u';

describe('resolveHome', () => {
  it('uses $<APP>_HOME first, on every platform', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      expect(resolveHome({ env: { ZOT_HOME: '/z', XDG_STATE_HOME: '/x' }, platform, homedir: home })).toBe('/z');
    }
  });

  it('derives the variable from any app name', () => {
    expect(homeEnvVar('zot')).toBe('ZOT_HOME');
    expect(homeEnvVar('my-agent.dev')).toBe('MY_AGENT_DEV_HOME');
    expect(resolveHome({ appName: 'my-agent', env: { MY_AGENT_HOME: '/m', ZOT_HOME: '/z' }, platform: 'linux', homedir: home })).toBe('/m');
  });

  it('uses $XDG_STATE_HOME/<app> when set, on any platform', () => {
    expect(resolveHome({ env: { XDG_STATE_HOME: '/state' }, platform: 'linux', homedir: home })).toBe('/state/zot');
    expect(resolveHome({ env: { XDG_STATE_HOME: '/state' }, platform: 'darwin', homedir: home })).toBe('/state/zot');
    expect(resolveHome({ appName: 'app', env: { XDG_STATE_HOME: 'C:\\state', LOCALAPPDATA: 'C:\\L' }, platform: 'win32', homedir: 'C:\\Users\\u' })).toBe(
      'C:\\state\\app',
    );
  });

  it('falls back per platform', () => {
    expect(resolveHome({ env: {}, platform: 'linux', homedir: home })).toBe('/home/u/.local/state/zot');
    expect(resolveHome({ env: {}, platform: 'freebsd', homedir: home })).toBe('/home/u/.local/state/zot');
    expect(resolveHome({ env: {}, platform: 'darwin', homedir: '/Users/u' })).toBe('/Users/u/Library/Application Support/zot');
    expect(resolveHome({ env: { LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, platform: 'win32', homedir: 'C:\\Users\\u' })).toBe(
      'C:\\Users\\u\\AppData\\Local\\zot',
    );
    // Without LOCALAPPDATA, its usual location below the home directory.
    expect(resolveHome({ env: {}, platform: 'win32', homedir: 'C:\\Users\\u' })).toBe('C:\\Users\\u\\AppData\\Local\\zot');
  });

  it('treats empty variables as unset and ignores a relative XDG_STATE_HOME', () => {
    expect(resolveHome({ env: { ZOT_HOME: '', XDG_STATE_HOME: '' }, platform: 'linux', homedir: home })).toBe('/home/u/.local/state/zot');
    expect(resolveHome({ env: { XDG_STATE_HOME: 'relative/state' }, platform: 'linux', homedir: home })).toBe('/home/u/.local/state/zot');
  });

  it('defaults to the real environment, platform and home directory', () => {
    expect(resolveHome()).toBe(resolveHome({ env: process.env, platform: process.platform }));
  });
});
