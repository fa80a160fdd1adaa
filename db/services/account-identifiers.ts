import { randomBytes } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import { composeIBAN } from 'ibantools';
import { getAddress } from 'viem';
import type { CryptoCurrency } from '../../core/currencies';
import { assertInvariant } from '../../core/errors';
import { chainParameters } from '../../core/chain-parameters';

/**
 * Identifiers of accounts. A new partner's IBAN sits under a fixed test bank code. Its wallet
 * addresses are derived from the service's HD keys (deposit-address.service.ts), never these.
 */
const BANK_CODE = '10010010';

export function newIban(): string {
  const accountNumber = BigInt('0x' + randomBytes(8).toString('hex')) % 10_000_000_000n;
  const iban = composeIBAN({ countryCode: 'DE', bban: BANK_CODE + accountNumber.toString().padStart(10, '0') });
  assertInvariant(iban, 'composed IBAN is valid');
  return iban;
}

/**
 * A fresh random address of the currency's format (checksums included) that nobody holds a key
 * for: what tests and the fault campaign send withdrawals to. Never a partner's deposit address.
 */
export function newWalletAddress(currency: CryptoCurrency): string {
  const hash = randomBytes(20);
  switch (currency) {
    case 'eth':
    case 'pol':
    case 'usdc':
      return getAddress(`0x${hash.toString('hex')}`);
    case 'btc':
    case 'ltc': {
      const address = bitcoin.payments.p2wpkh({ hash, network: chainParameters(currency, 'mainnet') }).address;
      assertInvariant(address, 'segwit address derived');
      return address;
    }
    case 'doge': {
      const address = bitcoin.payments.p2pkh({ hash, network: chainParameters(currency, 'mainnet') }).address;
      assertInvariant(address, 'dogecoin address derived');
      return address;
    }
  }
}
