/** An HTTP answer, or why there was none (a connection error or a timeout). */
export type Answer = { status: number; body: Envelope; location?: string } | { error: string };
export type Answered = Extract<Answer, { status: number }>;

export interface Envelope {
  message?: string;
  data?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface Request {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers?: Record<string, string>;
  /** JSON unless `form` says otherwise. */
  body?: unknown;
  form?: Record<string, string>;
}

/** Requests that were sent again, by why: `503`, `ECONNREFUSED`, `timeout`, … */
export type RetryCounts = Record<string, number>;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function send(request: Request, timeoutMs: number): Promise<Answer> {
  const headers: Record<string, string> = { ...request.headers };
  let body: string | undefined;
  if (request.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(request.form).toString();
  } else if (request.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.body);
  }
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let parsed: Envelope = {};
    try {
      parsed = JSON.parse(text) as Envelope;
    } catch {
      parsed = { message: text.slice(0, 200) };
    }
    return { status: response.status, body: parsed, location: response.headers.get('location') ?? undefined };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    const name = (error as Error).name;
    return {
      error: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : (cause?.code ?? (error as Error).message),
    };
  }
}

export const retryable = (answer: Answer): boolean => 'error' in answer || answer.status >= 500;

/**
 * Sends `request(attempt)` until the answer is neither a 5xx nor a connection error or timeout,
 * backing off from 250 ms to 5 s; the request may differ per attempt only in where it goes (the
 * next gateway). Gives up after `giveUpAt()`, answering the last failure.
 */
export async function persist(
  request: (attempt: number) => Request,
  options: { timeoutMs: number; giveUpAt: () => number; retries: RetryCounts },
): Promise<Answer> {
  for (let attempt = 0; ; attempt += 1) {
    const answer = await send(request(attempt), options.timeoutMs);
    if (!retryable(answer) || Date.now() > options.giveUpAt()) return answer;
    const why = 'error' in answer ? answer.error : String(answer.status);
    options.retries[why] = (options.retries[why] ?? 0) + 1;
    await sleep(Math.min(5_000, 250 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random() / 2));
  }
}

/** One line about an answer, for the report. */
export function describe(answer: Answer): string {
  return 'error' in answer ? answer.error : `${answer.status} ${answer.body.message ?? ''}`.trim();
}
