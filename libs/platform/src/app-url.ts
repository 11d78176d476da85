/**
 * This process's own base URL, known only once the HTTP server listens (PORT may be 0).
 * Features read it lazily, e.g. to default provider callback URLs to themselves in standalone.
 */
export class AppUrl {
  private url?: string;

  set(url: string): void {
    this.url = url.replace(/\/$/, '');
  }

  get(): string {
    if (!this.url) throw new Error('the application URL is not known before the server listens');
    return this.url;
  }
}
