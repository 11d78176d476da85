/**
 * README's curl sections for money out, run as printed against `npm start` (node dist/apps/standalone/main.js): the
 * mobile money collection, then "Refunding a collection by curl" and "Sending a payout by curl", with what a new user
 * fills in by hand (the keys and merchant id start printed, the internal_reference the answer gave) and the README's
 * own URL turned into this run's. Each command runs in bash as written; a read the README says to repeat "half a second
 * later" is repeated until its record is no longer PENDING.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '@paygate/testing';
import { startStandalone, type RunningLayout } from '../dashboard/layouts';

const README = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');

/** The first ```sh block under the README heading `### <heading>`. */
function shellBlock(heading: string): string {
  const section = README.slice(README.indexOf(`### ${heading}\n`));
  const match = /```sh\n([\s\S]*?)```/.exec(section);
  if (!match || !section.startsWith('###')) throw new Error(`README has no sh block under "### ${heading}"`);
  return match[1];
}

/** The commands of a block as a shell reads them: continued lines and quoted newlines joined, comments left out. */
function commandsOf(block: string): string[] {
  const commands: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (const line of block.split('\n')) {
    if (current === '' && (line.startsWith('#') || line.trim() === '')) continue;
    current += (current ? '\n' : '') + line;
    for (let at = 0; at < line.length; at++) {
      const char = line[at];
      if (char === '\\' && quote !== "'") at++;
      else if (quote === null && (char === "'" || char === '"')) quote = char;
      else if (char === quote) quote = null;
    }
    if (quote === null && !line.endsWith('\\')) {
      commands.push(current);
      current = '';
    }
  }
  return commands;
}

interface Answer {
  code: number;
  data: Record<string, unknown> & { balance?: number };
}

/** The UGX balance in GET /v1/wallet-balances' answer (its data is a list). */
const ugxBalance = (answer: { data: unknown }) =>
  (answer.data as { currency: string; balance: number }[]).find((wallet) => wallet.currency === 'UGX')?.balance;

describe("README's money out by curl, against npm start", () => {
  let layout: RunningLayout;
  const filled: Record<string, string> = {};
  const exports: string[] = [];

  /** Runs one README command as printed, what a user types in filled in; answers its parsed envelope. */
  function run(command: string): Answer {
    let typed = command.replaceAll('http://127.0.0.1:3000', layout.url);
    for (const [placeholder, value] of Object.entries(filled)) typed = typed.replaceAll(placeholder, value);
    if (typed.startsWith('export ')) {
      exports.push(typed);
      return { code: 0, data: {} };
    }
    const output = execFileSync('bash', ['-c', [...exports, typed].join('\n')], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, ADMIN_TOKEN: layout.adminToken },
    });
    return JSON.parse(output) as Answer;
  }

  /** A read README says to make again a moment later: made until its record is final. */
  async function runUntilFinal(command: string): Promise<Answer> {
    for (let tries = 0; ; tries++) {
      const answer = run(command);
      const status = answer.data.status ?? answer.data.transaction_status;
      if (status !== 'PENDING' || tries === 40) return answer;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  async function runBlock(heading: string): Promise<Answer[]> {
    const answers: Answer[] = [];
    for (const command of commandsOf(shellBlock(heading))) {
      if (command.startsWith('export ')) {
        run(command);
        continue;
      }
      const answer =
        / \$URL\/v1\/(collections|refunds|payouts)\/[^ ]+ -H/.test(command) && !command.includes('-X POST')
          ? await runUntilFinal(command)
          : run(command);
      answers.push(answer);
      if (typeof answer.data.internal_reference === 'string')
        filled['<internal_reference>'] = answer.data.internal_reference;
    }
    return answers;
  }

  beforeAll(async () => {
    layout = await startStandalone();
    const output = layout.output();
    const printed = (pattern: RegExp) => pattern.exec(output)?.[1] ?? '';
    filled['<public-key printed at start>'] = printed(/public-key: {2}(\S+)/);
    filled['<secret-key printed at start>'] = printed(/secret-key: {2}(\S+)/);
    filled['<demo merchant id printed at start>'] = printed(/demo merchant (\S+)/);
  }, 120_000);
  afterAll(() => layout?.close());

  it('the collection completes, then is refunded in part: the refund COMPLETED and the record shows it', async () => {
    const collection = await runBlock('A mobile money collection by curl');
    expect(collection.map((answer) => answer.code)).toEqual([200, 202, 202, 200]);
    expect(collection[3].data.transaction_status).toBe('COMPLETED');

    const refund = await runBlock('Refunding a collection by curl');
    expect(refund.map((answer) => answer.code)).toEqual([202, 200]);
    expect(refund[1].data).toMatchObject({ refund_reference: 'refund-1', amount: 20_000, status: 'COMPLETED' });
    const record = run(
      `curl -s $URL/v1/collections/${filled['<internal_reference>']} -H "public-key: $PK" -H "secret-key: $SK"`,
    );
    expect(record.data.amount_refunded).toBe(20_000);
  });

  it('a payout after the top-up and the name check: COMPLETED, the wallet 20,500 lower', async () => {
    const [adminExport] = commandsOf(shellBlock('Paying a URA PRN from a collection (collect-for-payment) by curl'));
    expect(adminExport.startsWith('export ADMIN=')).toBe(true);
    run(adminExport);
    const payout = await runBlock('Sending a payout by curl');
    expect(payout.map((answer) => answer.code)).toEqual([200, 200, 202, 200]);
    const toppedUp = payout[0].data.balance;
    expect(toppedUp).toEqual(expect.any(Number));
    expect(payout[1].data).toMatchObject({ can_receive: true, name: expect.any(String) });
    expect(payout[2].data).toMatchObject({ payout_reference: 'payout-1', fee: 500, status: 'PENDING' });
    expect(payout[3].data).toMatchObject({ status: 'COMPLETED' });
    // The balances are a read model: the payout's capture shows a moment after it completed.
    const paid = (toppedUp ?? 0) - 20_500;
    await eventually(
      () =>
        ugxBalance(run('curl -s $URL/v1/wallet-balances -H "public-key: $PK" -H "secret-key: $SK"')) === paid ||
        undefined,
      10_000,
      'the wallet 20,500 lower',
    );
  });
});
