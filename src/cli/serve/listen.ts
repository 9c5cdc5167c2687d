// `--listen HOST:PORT` and the ws:// URL printed for it.
import type { Server } from 'node:http';
import { type AddressInfo, isIP, isIPv6 } from 'node:net';
import { CliError, CliErrorCode } from '../errors.js';

export interface ListenAddress {
  /** Without brackets (`::1`, `127.0.0.1`, `localhost`). */
  host: string;
  /** 0 picks a free port. */
  port: number;
}

/** `--listen` when not given: loopback only, any free port. */
export const DEFAULT_LISTEN = '127.0.0.1:0';

/** Parses `HOST:PORT` or `[IPv6]:PORT`. */
export function parseListen(value: string): ListenAddress {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (match === null || port > 65535) {
    throw new CliError(CliErrorCode.USAGE, `--listen ${JSON.stringify(value)}: expected HOST:PORT (e.g. 127.0.0.1:8080, [::1]:8080; port 0 picks a free one)`);
  }
  const host = match[1] ?? match[2]!;
  if (match[1] !== undefined && !isIPv6(host)) throw new CliError(CliErrorCode.USAGE, `--listen ${JSON.stringify(value)}: ${host} in brackets is not an IPv6 address`);
  return { host, port };
}

/** `host` as a URL (and a Host header) names it: an IPv6 address in brackets, anything else as it is. */
export function urlHost(host: string): string {
  return isIPv6(host) ? `[${host}]` : host;
}

/** `ws://host:port`, an IPv6 host in brackets. */
export function wsUrl(host: string, port: number): string {
  return `ws://${urlHost(host)}:${port}`;
}

/** Loopback only: 127.0.0.0/8, ::1 (also IPv4-mapped), `localhost`. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/** Listens on `host:port`; resolves with the port bound (the real one when 0 was asked for), rejects with the listen error (EADDRINUSE, ...). */
export async function listenOn(http: Server, host: string, port: number): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen({ host, port }, () => {
      http.off('error', reject);
      resolve();
    });
  });
  return (http.address() as AddressInfo).port;
}
