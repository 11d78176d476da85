import { Controller, Get, Inject } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { WalletBalances } from '@paygate/contracts';
import type { Merchant } from '@paygate/merchants';
import { toMajorUnits } from '@paygate/money';
import { envelope, INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { CurrentMerchant, MerchantApi, RequireSecretKey } from './guards';
import { ApiAnswer, MerchantOperation } from './openapi/responses';
import { WalletBalanceDto } from './openapi/schemas';

@ApiTags('wallet')
@Controller()
@MerchantApi()
export class WalletController {
  constructor(@Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {}

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
      })),
    );
  }
}
