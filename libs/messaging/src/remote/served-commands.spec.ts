import { WrongExpectedRevisionError } from '@paygate/event-store';
import { NO_METRICS } from '@paygate/metrics';
import { silentLogger } from '@paygate/testing';
import { ServedCommands } from './served-commands';

/** The receiving side of remote commands: what a process answers for the services it serves, and for one it does not yet. */
describe('served commands', () => {
  const served = () => {
    const commands = new ServedCommands(NO_METRICS, silentLogger);
    commands.add('payments', { 'payments.topUp': async () => ({ balance: 1 }) });
    return commands;
  };

  it("answers a served service's command with its handler's value", async () => {
    expect(await served().receive({ service: 'payments', command: 'payments.topUp', payload: {} })).toEqual({
      ok: true,
      value: { balance: 1 },
    });
  });

  it('answers a command a served service does not know as unknown_command (a newer sender)', async () => {
    expect(await served().receive({ service: 'payments', command: 'payments.newer', payload: {} })).toMatchObject({
      ok: false,
      rejection: { code: 'unknown_command' },
    });
  });

  it('answers a stream other writers kept moving past every attempt as unavailable (busy), never as internal', async () => {
    const commands = served();
    commands.add('payments', {
      'payments.holdMoneyOut': async () => {
        throw new WrongExpectedRevisionError('wallet-m-UGX', 7, 8);
      },
    });
    expect(
      await commands.receive({ service: 'payments', command: 'payments.holdMoneyOut', payload: {} }),
    ).toMatchObject({ ok: false, rejection: { code: 'service_unavailable' } });
  });

  it('answers a service not registered yet (its module still starting) as unavailable, to be tried again', async () => {
    const commands = served();
    const early = await commands.receive({
      service: 'disbursements',
      command: 'disbursements.requestRefund',
      payload: {},
    });
    expect(early).toEqual({
      ok: false,
      rejection: { code: 'service_unavailable', message: 'disbursements is not served by this process yet; try again' },
    });
    commands.add('disbursements', { 'disbursements.requestRefund': async () => ({ refund: 'r' }) });
    expect(
      await commands.receive({ service: 'disbursements', command: 'disbursements.requestRefund', payload: {} }),
    ).toEqual({ ok: true, value: { refund: 'r' } });
  });
});
