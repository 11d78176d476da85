import { eventually } from './wait';

export interface DeployedUrls {
  gateway: string;
  dispatcher: string;
}

/** A gateway request becomes a command, an event, and a receipt at the dispatcher. */
export async function runWiringProbe(urls: DeployedUrls): Promise<void> {
  const note = `probe ${Date.now()}`;
  const response = await fetch(`${urls.gateway}/v1/probes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ note }),
  });
  const body = (await response.json()) as { data: { probe_id: string } };
  expect(response.status).toBe(202);
  expect(body).toMatchObject({ code: 202, status: 'accepted', data: { probe_id: expect.any(String) } });

  const receipt = await eventually(async () => {
    const res = await fetch(`${urls.dispatcher}/internal/v1/probes/${body.data.probe_id}`);
    return res.status === 200 ? ((await res.json()) as { data: Record<string, unknown> }) : undefined;
  }, 30_000, 'the dispatcher to receive the probe');
  expect(receipt.data).toMatchObject({ probe_id: body.data.probe_id, note, deliveries: 1 });
}

export async function expectReady(baseUrl: string): Promise<void> {
  const live = await fetch(`${baseUrl}/health/live`);
  expect(live.status).toBe(200);
  const ready = await fetch(`${baseUrl}/health/ready`);
  expect(ready.status).toBe(200);
  expect(await ready.json()).toEqual({ status: 'ready' });
}
