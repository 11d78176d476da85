import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ProviderRequestError,
  type CollectInitiateRequest,
  type CollectInitiation,
  type CollectOperations,
  type ConnectorRegistry,
  type ProviderOutcome,
} from '@paygate/connectors';
import { failureShowingNoSecret, NOT_AN_ANSWER, transportFailureConformance } from './connector-failure';
import { fakeProvider } from './fake-providers';
import { eventually } from '../scenarios/wait';

/** One outcome the sandbox can be brought to, and how. */
export interface CollectScenario {
  name: string;
  /** Request fields that choose the outcome (a test number, a short expiry). */
  request?: () => Partial<CollectInitiateRequest>;
  /** What the payer does once the collection is initiated (pays on the checkout page). */
  act?: (initiation: CollectInitiation) => Promise<void>;
  expected: ProviderOutcome | ((initiation: CollectInitiation) => ProviderOutcome);
  /** Whether the sandbox sends a notification for this outcome. */
  notifies: boolean;
}

export interface CollectConformanceTarget {
  providerCode: string;
  /** The registry whose connectors talk to the sandbox. */
  registry: () => ConnectorRegistry;
  /** A registry for the same catalogue whose provider APIs all live at `baseUrl`. */
  registryAt: (baseUrl: string, timeoutMs: number) => ConnectorRegistry;
  /** A request the sandbox accepts; the suite sets reference and notifyUrl. */
  request: () => Omit<CollectInitiateRequest, 'reference' | 'notifyUrl'>;
  scenarios: CollectScenario[];
  /** How many prompts or sessions the sandbox holds for our reference. */
  sandboxInitiations: (reference: string) => Promise<number>;
  /** What a provider answers before an operation can be reached (MoMo's token); undefined for the operation itself. */
  handshake?: (method: string, path: string) => { status: number; body: unknown } | undefined;
  /** Credentials the connector sends: no error may show one. */
  secrets: string[];
}

interface Notification {
  path: string;
  body: unknown;
}

/** Bodies no protocol accepts as an answer. */
const MALFORMED_BODIES = [
  ...NOT_AN_ANSWER,
  '"SUCCESSFUL"',
  '{"status":42}',
  '{"status":"UNHEARD_OF","id":"x"}',
  '{"id":"x","payment_url":"javascript:alert(1)"}',
];

/** Bodies no protocol accepts as a notification. */
const GARBAGE_NOTIFICATIONS: unknown[] = [
  undefined,
  null,
  '',
  'status=SUCCESSFUL',
  42,
  true,
  [],
  {},
  { status: 'SUCCESSFUL' },
  { status: [] },
  { session_id: '', reference: '' },
  { externalId: 7, status: 'SUCCESSFUL' },
  [{ status: 'SUCCESSFUL' }],
  Object.create(null),
];

/**
 * The behaviour every collect connector shows, through the registry and the port only: it is
 * declared once per provider_code, against that provider's sandbox. Every listener it talks to
 * besides the sandbox is one it starts on 127.0.0.1.
 */
export function collectConnectorConformance(target: CollectConformanceTarget): void {
  const notifications: Notification[] = [];
  let receiver: HttpServer;
  let notifyBase: string;

  const collect = (registry = target.registry()): CollectOperations =>
    registry.get(target.providerCode, 'collect').collect;
  const request = (reference: string, overrides: Partial<CollectInitiateRequest> = {}): CollectInitiateRequest => ({
    ...target.request(),
    ...overrides,
    reference,
    notifyUrl: `${notifyBase}/notify/${reference}`,
  });
  const notificationsFor = (reference: string) => notifications.filter((n) => n.path === `/notify/${reference}`);
  const newReference = () => `PGTEST${randomUUID().replace(/-/g, '').slice(0, 20).toUpperCase()}`;

  /** Both operations that reach the provider, each started only when the previous one is over. */
  const operations = (connector: CollectOperations) => [
    () => connector.initiate(request(newReference())),
    () => connector.status(randomUUID()),
  ];

  const failure = (operation: () => Promise<unknown>) => failureShowingNoSecret(operation, target.secrets);

  beforeAll(async () => {
    receiver = createHttpServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => (text += chunk));
      req.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // Kept as text: a body that is not JSON is still a body the connector must survive.
        }
        notifications.push({ path: req.url ?? '', body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    notifyBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it.each(target.scenarios.map((scenario) => [scenario.name, scenario] as const))(
    'initiate and status reach %s',
    async (_name, scenario) => {
      const reference = newReference();
      const initiation = await collect().initiate(request(reference, scenario.request?.()));
      expect(initiation.providerReference).toEqual(expect.any(String));
      expect(initiation.providerReference).not.toBe('');
      await scenario.act?.(initiation);
      const expected = typeof scenario.expected === 'function' ? scenario.expected(initiation) : scenario.expected;
      const outcome = await eventually(
        async () => {
          const current = await collect().status(initiation.providerReference);
          expect(current).toEqual(expected);
          return current;
        },
        10_000,
        `the ${scenario.name} outcome`,
      );
      expect(outcome).toEqual(expected);
      if (scenario.notifies) {
        const [notification] = await eventually(
          () => (notificationsFor(reference).length > 0 ? notificationsFor(reference) : undefined),
          10_000,
          'the notification',
        );
        // The notification names the collection initiate started; the service then asks status.
        expect(collect().verifyNotification(notification.body)).toBe(initiation.providerReference);
      }
    },
  );

  it('treats a retried initiate with the same reference as the same collection', async () => {
    const reference = newReference();
    const first = await collect().initiate(request(reference));
    const retried = await collect().initiate(request(reference));
    expect(retried).toEqual(first);
    expect(await target.sandboxInitiations(reference)).toBe(1);
    expect(await collect().status(first.providerReference)).toEqual(
      expect.objectContaining({ status: expect.any(String) }),
    );
  });

  it('rejects a status query for a reference the provider does not know as a request error', async () => {
    const error = await failure(() => collect().status(`unknown-${randomUUID()}`));
    expect(error).toBeInstanceOf(ProviderRequestError);
    expect(error).toMatchObject({ status: 404 });
  });

  transportFailureConformance({
    counterpart: 'provider',
    operationsAt: (baseUrl, timeoutMs) => operations(collect(target.registryAt(baseUrl, timeoutMs))),
    failingWith: (status) => (method, path) => {
      const handshake = target.handshake?.(method, path);
      return handshake
        ? { status: handshake.status, body: JSON.stringify(handshake.body) }
        : { status, body: '{"error":"try later"}' };
    },
    secrets: target.secrets,
  });

  const malformedCases = MALFORMED_BODIES.flatMap((body) => [
    [body, 'the operation'] as const,
    ...(target.handshake ? [[body, 'the handshake'] as const] : []),
  ]);
  it.each(malformedCases)(
    'rejects the malformed body %j answering %s with a request error',
    async (body, answering) => {
      const malformed = await fakeProvider((method, path) => {
        const handshake = answering === 'the operation' ? target.handshake?.(method, path) : undefined;
        return handshake ? { status: handshake.status, body: JSON.stringify(handshake.body) } : { status: 200, body };
      });
      try {
        const connector = collect(target.registryAt(malformed.url, 5_000));
        for (const operation of operations(connector)) {
          const error = await failure(operation);
          expect(error).toBeInstanceOf(ProviderRequestError);
          expect(error.message).toMatch(/ answered HTTP 200 with a body that is not the expected answer$/);
        }
      } finally {
        await malformed.close();
      }
    },
  );

  it('finds no provider reference in a body that is not its notification, without throwing', () => {
    const connector = collect();
    const nested: Record<string, unknown> = {};
    let level = nested;
    for (let depth = 0; depth < 1000; depth += 1) level = level.status = {} as Record<string, unknown>;
    for (const body of [...GARBAGE_NOTIFICATIONS, nested]) expect(connector.verifyNotification(body)).toBeNull();
  });
}
