import { randomBytes } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import { composeIBAN } from 'ibantools';
import { getAddress } from 'viem';
import type { CryptoCurrency } from '../../core/currencies';
import { assertInvariant } from '../../core/errors';
import { chainParameters } from '../../core/chain-parameters';

/**
 * Identifiers for new partner accounts. The IBAN sits under a fixed test bank code and the wallet
 * addresses are fresh random ones: this service does not custody keys yet, so these name the
 * accounts (valid format, checksums included) without being spendable wallets.
 */
const BANK_CODE = '10010010';

export function newIban(): string {
  const accountNumber = BigInt('0x' + randomBytes(8).toString('hex')) % 10_000_000_000n;
  const iban = composeIBAN({ countryCode: 'DE', bban: BANK_CODE + accountNumber.toString().padStart(10, '0') });
  assertInvariant(iban, 'composed IBAN is valid');
  return iban;
}

export function newWalletAddress(currency: CryptoCurrency): string {
  const hash = randomBytes(20);
  switch (currency) {
    case 'eth':
    case 'pol':
    case 'usdc':
      return getAddress(`0x${hash.toString('hex')}`);
    case 'btc':
    case 'ltc': {
      const address = bitcoin.payments.p2wpkh({ hash, network: chainParameters(currency, true) }).address;
      assertInvariant(address, 'segwit address derived');
      return address;
    }
    case 'doge': {
      const address = bitcoin.payments.p2pkh({ hash, network: chainParameters(currency, true) }).address;
      assertInvariant(address, 'dogecoin address derived');
      return address;
    }
  }
}
