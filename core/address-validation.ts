import * as bitcoin from 'bitcoinjs-lib';
import { isAddress } from 'viem';
import { isBase58Check } from './address-format';
import { CHAIN_MODES, chainParameters } from './chain-parameters';
import type { ChainMode } from './chain-parameters';
import { CURRENCY_NETWORKS, NETWORK_DECLARATIONS, isEvmNetwork } from './networks';
import type { CryptoCurrency } from './currencies';
import type { Network, UtxoNetwork } from './networks';

/**
 * Undefined for a valid destination on the currency's chain and the configured mainnet, testnet or regtest, else
 * a sentence for the partner (a 400's errorMessage: it names `field`, never internals).
 */
export function withdrawalAddressProblem(
  currency: CryptoCurrency,
  network: Network,
  mode: ChainMode,
  address: string,
  field = 'walletAddress',
): string | undefined {
  if (!CURRENCY_NETWORKS[currency].includes(network)) return `network ${network} is not available for ${currency}`;
  if (address.length === 0) return `${field} must not be empty`;
  // Trimming silently would send to a string the partner did not send; make them fix it.
  if (address.trim() !== address) return `${field} must not have leading or trailing whitespace`;

  if (isEvmNetwork(network)) return evmAddressProblem(network, address, field);
  return utxoAddressProblem(network, mode, address, field);
}

/** EVM addresses look the same on every chain, so only the format and checksum count. */
function evmAddressProblem(network: Network, address: string, field: string): string | undefined {
  if (isAddress(address, { strict: true })) return undefined;
  // A well-formed address with a wrong checksum is most likely a typo: say so.
  if (isAddress(address, { strict: false })) return `${field} has an invalid EIP-55 checksum (${network} address)`;
  return `${field} is not a valid ${network} address`;
}

function utxoAddressProblem(network: UtxoNetwork, mode: ChainMode, address: string, field: string): string | undefined {
  if (isUtxoAddress(network, mode, address)) return undefined;
  // Mixing up the chains is the usual integration mistake; name it precisely. Testnet and regtest share most base58
  // versions (all of bitcoin's and litecoin's, dogecoin's P2SH): such an address is valid on both, named testnet on mainnet.
  const other = CHAIN_MODES.find((candidate) => candidate !== mode && isUtxoAddress(network, candidate, address));
  if (other) return `${field} is a ${network} ${other} address, but withdrawals go to ${mode}`;
  return `${field} is not a valid ${network} ${mode} address`;
}

function isUtxoAddress(network: UtxoNetwork, mode: ChainMode, address: string): boolean {
  const { depositKeys, addressFormat } = NETWORK_DECLARATIONS[network];
  const parameters = chainParameters(depositKeys.family, mode);
  if (isBase58Check(address)) return hasOutputScript(address, parameters);

  // No segwit where the network has none (dogecoin): its bech32 prefix is a placeholder a crafted string could carry.
  if (addressFormat !== 'segwit') return false;

  let segwit: bitcoin.address.Bech32Result;
  try {
    segwit = bitcoin.address.fromBech32(address);
  } catch {
    return false;
  }
  if (segwit.prefix !== parameters.bech32) return false;
  if (segwit.version === 0) return hasOutputScript(address, parameters);
  // bitcoinjs-lib needs an ECC library we do not load to check taproot keys: checked here (BIP 341).
  if (segwit.version === 1) return segwit.data.length === 32 && isSecp256k1XOnlyKey(segwit.data);
  // Versions 2-16 have no spending rules yet: coins sent there may be lost.
  return false;
}

/** bitcoinjs-lib throws for a wrong version byte, bech32 prefix or program length. */
function hasOutputScript(address: string, parameters: bitcoin.Network): boolean {
  try {
    bitcoin.address.toOutputScript(address, parameters);
    return true;
  } catch {
    return false;
  }
}

const SECP256K1_FIELD_PRIME = 2n ** 256n - 2n ** 32n - 977n;

/** A taproot key is valid (spendable) when it is the x of a curve point: x < p and x³ + 7 a square mod p (Euler's criterion). */
function isSecp256k1XOnlyKey(key: Uint8Array): boolean {
  const x = BigInt('0x' + Array.from(key, (byte) => byte.toString(16).padStart(2, '0')).join(''));
  if (x >= SECP256K1_FIELD_PRIME) return false;
  const ySquared = (modularPower(x, 3n, SECP256K1_FIELD_PRIME) + 7n) % SECP256K1_FIELD_PRIME;
  return modularPower(ySquared, (SECP256K1_FIELD_PRIME - 1n) / 2n, SECP256K1_FIELD_PRIME) === 1n;
}

function modularPower(base: bigint, exponent: bigint, modulus: bigint): bigint {
  let result = 1n;
  let factor = base % modulus;
  let remaining = exponent;
  while (remaining > 0n) {
    if (remaining & 1n) result = (result * factor) % modulus;
    factor = (factor * factor) % modulus;
    remaining >>= 1n;
  }
  return result;
}
