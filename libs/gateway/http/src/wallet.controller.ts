import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { PAYMENTS_SERVICE } from '@paygate/contracts';
import type { Merchant } from '@paygate/merchants';
import { toMajorUnits } from '@paygate/money';
import { envelope, INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { CurrentMerchant, MerchantApi, RequireSecretKey } from './guards';

@ApiTags('wallet')
@Controller()
@MerchantApi()
export class WalletController {
  constructor(@Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {}

  @Get(['v1/wallet-balances', 'wallet-balances'])
  @RequireSecretKey()
  @ApiSecurity('public-key')
  @ApiSecurity('secret-key')
  @ApiOperation({ summary: "The merchant's wallet per currency: balance, and what is available once holds are set aside" })
  @ApiResponse({
    status: 200,
    schema: { example: { code: 200, status: 'success', message: 'Wallet balances', data: [{ currency: 'UGX', balance: 79785, available_balance: 78570 }] } },
  })
  async balances(@CurrentMerchant() merchant: Merchant) {
    const { balances } = await this.infrastructure.commands.send(PAYMENTS_SERVICE, 'payments.walletBalances', { merchantId: merchant.id });
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
