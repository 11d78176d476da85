import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import { WalletBalances, WalletStatement, type WalletStatementQuery } from '@paygate/contracts';
import type { Merchant } from '@paygate/merchants';
import { toMajorUnits } from '@paygate/money';
import { envelope, INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { CurrentMerchant, MerchantApi, RequireSecretKey } from './guards';
import { ApiAnswer, MerchantOperation } from './openapi/responses';
import { CURRENCY_PATTERN, WalletBalanceDto, WalletTransactionPageDto } from './openapi/schemas';
import type { GatewayConfig } from './gateway-config';
import { GATEWAY_CONFIG } from './tokens';
import { encodeCursor, PageParameters, readPageQuery, STORED_INSTANT } from './page-cursor';
import { ValidationFailed } from './validation';

const CURRENCY = new RegExp(CURRENCY_PATTERN);
/** A page position's parts: the entry's instant and its id. */
const STATEMENT_PAGE = { filters: ['currency'], cursorParts: [STORED_INSTANT, /^[0-9]{1,19}$/] };

@ApiTags('wallet')
@Controller()
@MerchantApi()
export class WalletController {
  constructor(
    @Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get(['v1/wallet-balances', 'wallet-balances'])
  @RequireSecretKey()
  @MerchantOperation({
    id: 'listWalletBalances',
    summary: "The merchant's wallet per currency",
    description:
      'The balance, and what is available once holds (fees of PRNs being validated, PRN payments under way) are set aside. data is an array, one entry per currency.',
    secretKey: true,
    body: false,
  })
  @ApiAnswer(200, 'The balances', [WalletBalanceDto])
  async balances(@CurrentMerchant() merchant: Merchant) {
    const { balances } = await this.infrastructure.commands.send(new WalletBalances({ merchantId: merchant.id }));
    return envelope(
      200,
      'Wallet balances',
      balances.map((wallet) => ({
        currency: wallet.currency,
        balance: toMajorUnits(wallet.balance, wallet.currency),
        available_balance: toMajorUnits(wallet.available, wallet.currency),
        // A wallet holds the money of the deployment it is in.
        livemode: this.config.mode === 'live',
      })),
    );
  }

  @Get(['v1/wallet/transactions', 'wallet/transactions'])
  @RequireSecretKey()
  @ApiQuery({ name: 'currency', required: false, schema: { type: 'string', pattern: CURRENCY_PATTERN } })
  @PageParameters()
  @MerchantOperation({
    id: 'listWalletTransactions',
    summary: "The merchant's wallet statement, newest first",
    description:
      'Every entry of the wallet ledger: collections credited and top-ups with the double-entry transfers they posted, holds placed, released and captured, with what each changed the balance and the available balance by. Entries follow the event log, moments after what caused them.',
    secretKey: true,
    body: false,
    invalid:
      'a currency not of three capital letters, a parameter given twice or unknown, or a cursor this API did not give',
  })
  @ApiAnswer(200, 'A page of the statement', WalletTransactionPageDto)
  async statement(@CurrentMerchant() merchant: Merchant, @Query() query: Record<string, unknown>) {
    let currency: string | undefined;
    const { limit, after, errors } = readPageQuery(query, STATEMENT_PAGE, (_currency, value) => {
      if (!CURRENCY.test(value)) return 'currency must be three capital letters (ISO 4217)';
      currency = value;
      return undefined;
    });
    if (errors.length > 0) throw new ValidationFailed(errors);
    const page: WalletStatementQuery = {
      merchantId: merchant.id,
      limit,
      currency,
      ...(after && { after: { at: after[0], entryId: after[1] } }),
    };
    const { entries, next } = await this.infrastructure.commands.send(new WalletStatement(page));
    return envelope(200, 'Wallet transactions', {
      transactions: entries.map((entry) => {
        const major = (minor: number) => toMajorUnits(minor, entry.currency);
        return {
          id: entry.entryId,
          type: entry.kind,
          currency: entry.currency,
          balance_change: major(entry.balanceChange),
          available_change: major(entry.availableChange),
          hold_id: entry.holdId,
          purpose: entry.purpose,
          internal_reference: entry.internalReference,
          transfers: entry.transfers.map((transfer) => ({
            transfer_id: transfer.transferId,
            debit_account: transfer.debitAccount,
            credit_account: transfer.creditAccount,
            amount: major(transfer.amount),
          })),
          livemode: this.config.mode === 'live',
          created_at: entry.at,
        };
      }),
      next_cursor: next ? encodeCursor(next.at, next.entryId) : null,
    });
  }
}
