import type { FastifyReply, FastifyRequest } from 'fastify';

/** The signed-in session (its id; the server keeps only its hash). */
export const SESSION_COOKIE = 'paygate_session';
/** Before there is a session, the sign-in and invite forms' CSRF token, compared with the form's copy. */
export const FORM_COOKIE = 'paygate_form';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/**
 * HttpOnly, SameSite=Strict, scoped to /dashboard, and Secure except on plain HTTP to this
 * machine (`npm start`): anywhere else a cookie sent over plain HTTP could be read on the way.
 */
export function setCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  name: string,
  value: string,
  maxAgeSeconds: number,
): void {
  const local = request.protocol === 'http' && LOCAL_HOSTS.has(request.hostname);
  const attributes = [`${name}=${value}`, 'Path=/dashboard', 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeSeconds}`];
  if (!local) attributes.push('Secure');
  const existing = reply.getHeader('set-cookie');
  const cookies = Array.isArray(existing) ? existing : existing === undefined ? [] : [String(existing)];
  reply.header('set-cookie', [...cookies, attributes.join('; ')]);
}
