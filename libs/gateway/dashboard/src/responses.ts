import type { FastifyReply } from 'fastify';

/**
 * Every dashboard answer's headers: own scripts and styles only, no framing, forms to this origin
 * (the pages have nothing inline), no referrer (invite links carry their token in the path), and
 * nothing cached (pages show balances and, once, new keys).
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export function sendPage(reply: FastifyReply, status: number, body: string): void {
  void reply.status(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(body);
}

/** After a form: 303, so a reload repeats the GET, not the post. */
export function redirect(reply: FastifyReply, location: string): void {
  void reply.status(303).headers(PAGE_HEADERS).header('location', location).send();
}

/** A file to save (the collections export): the page headers, as an attachment. */
export function sendDownload(reply: FastifyReply, filename: string, type: string, body: string): void {
  void reply
    .status(200)
    .headers(PAGE_HEADERS)
    .header('content-disposition', `attachment; filename="${filename}"`)
    .type(`${type}; charset=utf-8`)
    .send(body);
}

/** The stylesheet and the script: the same for everyone, cached for an hour. */
export function sendAsset(reply: FastifyReply, type: string, body: string): void {
  void reply
    .headers({ 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=3600' })
    .type(`${type}; charset=utf-8`)
    .send(body);
}

export type Form = Record<string, unknown> | undefined;
export const field = (form: Form, name: string) => (typeof form?.[name] === 'string' ? (form[name] as string) : '');
