import { connect as tcpConnect, type Socket } from 'node:net';
import { checkServerIdentity, connect as tlsConnect, type TLSSocket } from 'node:tls';
import type { IpAddress } from './address.js';

/** Where to connect: addresses already resolved and checked, never resolved again. */
export interface UpstreamTarget {
  /** Tried in order until one accepts (at most four). */
  addresses: readonly IpAddress[];
  port: number;
  /** The destination as the request named it, for messages and the TLS identity check. */
  label: string;
  /** Speak TLS to the upstream, verifying its certificate for `identity`. */
  tls?: {
    /** Name or IP literal (IPv6 without brackets) the certificate must name. */
    identity: string;
    /** Trusted CAs instead of the system's (tests). */
    ca?: string | Buffer | Array<string | Buffer>;
  };
}

export interface UpstreamFailure {
  status: 502 | 504;
  reason: string;
}

const MAX_ATTEMPTS = 4;

/** Resolves with `socket` once it emits `event`, or rejects on its error or when `signal` aborts. */
function ready<T extends Socket>(socket: T, event: string, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const abort = () => socket.destroy(new Error('timed out'));
    const fail = (err: Error) => {
      signal.removeEventListener('abort', abort);
      reject(err);
    };
    signal.addEventListener('abort', abort, { once: true });
    socket.once('error', fail);
    socket.once(event, () => {
      signal.removeEventListener('abort', abort);
      socket.off('error', fail);
      // Until the exchange adopts the socket, a late error must not go unhandled.
      socket.on('error', () => undefined);
      resolve(socket);
    });
  });
}

function attempt(address: IpAddress, port: number, signal: AbortSignal): Promise<Socket> {
  // An IP literal: net.connect does no lookup, so the checked address is the one reached.
  return ready(tcpConnect({ host: address.text, port, family: address.family }), 'connect', signal);
}

async function handshake(
  socket: Socket,
  tls: NonNullable<UpstreamTarget['tls']>,
  signal: AbortSignal,
): Promise<TLSSocket> {
  const isName = !/^[0-9.]+$|:/.test(tls.identity);
  const secure = tlsConnect({
    socket,
    // SNI carries names only; an IP identity is still verified below against the certificate's IP SANs.
    ...(isName ? { servername: tls.identity } : {}),
    ...(tls.ca === undefined ? {} : { ca: tls.ca }),
    ALPNProtocols: ['http/1.1'],
    checkServerIdentity: (_host, cert) => checkServerIdentity(tls.identity, cert),
  });
  try {
    return await ready(secure, 'secureConnect', signal);
  } catch (err) {
    socket.destroy();
    throw err;
  }
}

/**
 * Connects to the first address of `target` that accepts, then completes TLS when asked, all before
 * `signal` aborts (the caller's connect timeout or the end of the exchange). Never throws.
 */
export async function connectUpstream(
  target: UpstreamTarget,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Socket | UpstreamFailure> {
  let last: unknown;
  for (const address of target.addresses.slice(0, MAX_ATTEMPTS)) {
    if (signal.aborted) break;
    try {
      const socket = await attempt(address, target.port, signal);
      if (!target.tls) return socket;
      try {
        return await handshake(socket, target.tls, signal);
      } catch (err) {
        if (signal.aborted) break;
        const code = (err as { code?: string }).code;
        return {
          status: 502,
          reason: `TLS with ${target.label} failed: ${(err as Error).message}${code ? ` (${code})` : ''}`,
        };
      }
    } catch (err) {
      last = err;
    }
  }
  if (signal.aborted) return { status: 504, reason: `${target.label} did not answer within ${timeoutMs} ms` };
  const code = (last as { code?: string } | undefined)?.code;
  return { status: 502, reason: `${target.label} could not be reached${code ? ` (${code})` : ''}` };
}

/** Whether `connectUpstream` failed. */
export function isUpstreamFailure(result: Socket | UpstreamFailure): result is UpstreamFailure {
  return !('write' in result);
}
