import type { TLSSocket } from 'node:tls';
import type { Logger } from '@paygate/logging';
import type { Counter, Metrics } from '@paygate/metrics';

/** A peer refused again for the same reason within this long is counted, not logged again. */
const LOG_AGAIN_AFTER_MS = 60_000;
/** Peers remembered at most; a scan from many addresses must not grow memory without bound. */
const REMEMBERED_PEERS = 1_000;

/** Why a connection to the command port did not become a command connection (a metric label, so a short fixed set). */
const REFUSAL_REASONS = [
  'no_certificate',
  'untrusted_certificate',
  'not_tls',
  'handshake_timeout',
  'handshake_failed',
  'not_a_sender',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** `authorizationError`: the verdict on the certificate the peer did present, when it got that far. */
export function refusalReason(error: Error & { code?: string }, authorizationError?: Error | string): RefusalReason {
  if (authorizationError) return 'untrusted_certificate';
  const code = error.code ?? '';
  const text = `${code} ${error.message}`.toLowerCase();
  if (text.includes('did_not_return_a_certificate') || text.includes('peer did not return a certificate'))
    return 'no_certificate';
  if (code === 'ERR_TLS_HANDSHAKE_TIMEOUT') return 'handshake_timeout';
  if (
    text.includes('wrong_version_number') ||
    text.includes('http_request') ||
    text.includes('packet_length_too_long') ||
    text.includes('unsupported_protocol')
  )
    return 'not_tls';
  if (text.includes('certificate') || text.includes('unknown_ca') || text.includes('verify'))
    return 'untrusted_certificate';
  return 'handshake_failed';
}

/**
 * The command port's refusals: every one counted (paygate_command_connections_refused_total),
 * the first of each kind from each peer logged as a warning, so an operator sees who knocks without a
 * scanner filling the log.
 */
export class RefusedConnections {
  private readonly refused: Counter<'reason'>;
  private readonly loggedAt = new Map<string, number>();

  constructor(
    metrics: Metrics,
    private readonly log: Logger,
  ) {
    this.refused = metrics.counter({
      name: 'paygate_command_connections_refused_total',
      help: 'Connections to the command port refused: the peer proved no certificate signed by the private CA, or one for an app that may not send these commands',
      labelNames: ['reason'],
      reportedFromStart: REFUSAL_REASONS.map((reason) => ({ reason })),
    });
  }

  record(error: Error & { code?: string }, socket: Pick<TLSSocket, 'remoteAddress' | 'authorizationError'>): void {
    const reason = refusalReason(error, socket.authorizationError);
    this.refuse(socket, reason, 'command connection refused: no certificate from the private CA');
  }

  /** A peer with a certificate from the private CA whose app (`app`, if it names one) may not send these commands. */
  notASender(socket: Pick<TLSSocket, 'remoteAddress'>, app: string | undefined): void {
    this.refuse(
      socket,
      'not_a_sender',
      'command connection refused: its certificate names no app allowed to send these commands',
      {
        app: app ?? null,
      },
    );
  }

  private refuse(
    socket: Pick<TLSSocket, 'remoteAddress'>,
    reason: RefusalReason,
    message: string,
    fields: Record<string, unknown> = {},
  ): void {
    this.refused.inc({ reason });
    const peer = socket.remoteAddress ?? 'unknown';
    // Per kind: another app's certificate knocking says more than the same peer's port scan did.
    const key = `${peer} ${reason}`;
    const now = Date.now();
    const last = this.loggedAt.get(key);
    if (last !== undefined && now - last < LOG_AGAIN_AFTER_MS) return;
    if (this.loggedAt.size >= REMEMBERED_PEERS) this.loggedAt.clear();
    this.loggedAt.set(key, now);
    this.log.warn(message, { peer, reason, ...fields });
  }
}
